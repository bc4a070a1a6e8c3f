/* test_completion.c - bash completion (completion/cloudpickle): a bash
 * sources it, sets COMP_LINE/COMP_POINT/COMP_WORDS/COMP_CWORD as readline
 * would (":" and "=" split words) and calls the function; the tests assert
 * COMPREPLY. Every option a program's --help prints is offered, from the
 * program itself and from the built-in list; values get files, directories
 * or fixed words; MODULE:ATTR is read from the module's source, which is
 * never run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ccloudpickle.h"
#include "support.h"

#define SCRIPT CPK_SOURCE_DIR "/completion/cloudpickle"
#define BASH_COMPLETION "/usr/share/bash-completion/bash_completion"

static char dir[64];

static void
setup(void)
{
    cpk_tmpdir(dir, sizeof(dir));
    char path[256];
    /* jobs.py would leave a file behind if completion imported it. */
    snprintf(path, sizeof(path), "%s/jobs.py", dir);
    cpk_write_file(path,
                   "import os\n"
                   "open('IMPORTED', 'w').close()\n"
                   "X = 1\n"
                   "def scale(x):\n"
                   "    return x\n"
                   "class Job:\n"
                   "    limit = 3\n"
                   "    def run(self):\n"
                   "        pass\n");
    snprintf(path, sizeof(path), "%s/lib", dir);
    cr_assert(mkdir(path, 0755) == 0);
    snprintf(path, sizeof(path), "%s/lib/libmod.py", dir);
    cpk_write_file(path, "def g():\n    pass\n");
    snprintf(path, sizeof(path), "%s/pkg", dir);
    cr_assert(mkdir(path, 0755) == 0);
    snprintf(path, sizeof(path), "%s/pkg/__init__.py", dir);
    cpk_write_file(path, "top = 1\n");
    snprintf(path, sizeof(path), "%s/pkg/inner.py", dir);
    cpk_write_file(path, "def h():\n    pass\n");
    snprintf(path, sizeof(path), "%s/a file.pkl", dir);
    cpk_write_file(path, "");
    snprintf(path, sizeof(path), "%s/key.bin", dir);
    cpk_write_file(path, "");
}

static void
remove_dir(void)
{
    const char *argv[] = {"/bin/rm", "-rf", dir, NULL};
    cpk_proc p;
    cpk_spawn(&p, argv, "/", NULL, 0, NULL);
    cpk_proc_free(&p);
}

TestSuite(completion, .init = setup, .fini = remove_dir, .timeout = 60);

/* `comp LINE` prints "[LINE] <reply><reply>..." (sorted); before it,
 * `pre` (e.g. sourcing bash-completion's helpers). */
static const char harness[] =
    "comp() {\n"
    "  COMP_LINE=$1; COMP_POINT=${#1}\n"
    "  local tmp=${1//:/ : }; tmp=${tmp//=/ = }\n"
    "  read -ra COMP_WORDS <<<\"$tmp\"\n"
    "  [[ $1 == *' ' ]] && COMP_WORDS+=('')\n"
    "  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))\n"
    "  COMPREPLY=()\n"
    "  _cloudpickle\n"
    "  printf '[%s] ' \"${1#* }\"\n"
    "  ((${#COMPREPLY[@]})) && printf '%s\\n' \"${COMPREPLY[@]}\" | LC_ALL=C sort |\n"
    "    while IFS= read -r w; do printf '<%s>' \"$w\"; done\n"
    "  echo\n"
    "}\n"
    "D=" CPK_DUMP "\n"
    "L=" CPK_LOAD "\n";

static void
run(cpk_proc *p, const char *pre, const char *body)
{
    size_t cap = strlen(harness) + strlen(body) + 512;
    char *script = malloc(cap);
    cr_assert(script != NULL);
    snprintf(script, cap, "%s\nsource '%s' || exit 9\n%s%s", pre, SCRIPT,
             harness, body);
    const char *argv[] = {"/bin/bash", "--norc", "--noprofile", "-c", script,
                          NULL};
    const char *env[] = {"PATH=/usr/bin:/bin", NULL};
    cpk_spawn(p, argv, dir, NULL, 0, env);
    free(script);
    cpk_assert_exit(p, 0);
}

static const char values_body[] =
    "comp \"$D --compat \"\n"
    "comp \"$D --compat=cloudpickle2\"\n"
    "comp \"$D -p \"\n"
    "comp \"$D --protocol=4\"\n"
    "comp \"$D -o a\"\n"
    "comp \"$D --output=a\"\n"
    "comp \"$D --sign k\"\n"
    "comp \"$D -P \"\n"
    "comp \"$L a\"\n"
    "comp \"$L --verify=k\"\n"
    "comp \"$L --allow \"\n"
    "comp \"$L --max-size=\"\n"
    "comp \"$D --by-ref \"\n";

static const char values_expected[] =
    "[--compat ] <2.0><2.0.0><2.1><2.1.0><2.2><2.2.0><2.2.1><3.0><3.0.0><3.1><3.1.0><3.1.1><3.1.2><cloudpickle><cloudpickle2><cloudpickle3>\n"
    "[--compat=cloudpickle2] <cloudpickle2>\n"
    "[-p ] <0><1><2><3><4><5>\n"
    "[--protocol=4] <4>\n"
    "[-o a] <a file.pkl>\n"
    "[--output=a] <a file.pkl>\n"
    "[--sign k] <key.bin>\n"
    "[-P ] <lib><pkg>\n"
    "[a] <a file.pkl>\n"
    "[--verify=k] <key.bin>\n"
    "[--allow ] \n"
    "[--max-size=] \n"
    "[--by-ref ] <jobs:><pkg.><pkg:>\n";

/* Files, directories and fixed words for option values; nothing where no
 * value can be guessed. */
Test(completion, option_values)
{
    cpk_proc p;
    run(&p, "", values_body);
    cr_assert_str_eq(p.out, values_expected);
    cr_assert_str_empty(p.err);
    cpk_proc_free(&p);
}

static const char spec_body[] =
    "comp \"$D jo\"\n"
    "comp \"$D jobs:\"\n"
    "comp \"$D jobs:s\"\n"
    "comp \"$D jobs:Job.\"\n"
    "comp \"$D jobs:Job.r\"\n"
    "comp \"$D jobs:nothere\"\n"
    "comp \"$D nothere:\"\n"
    "comp \"$D pk\"\n"
    "comp \"$D pkg.\"\n"
    "comp \"$D pkg:\"\n"
    "comp \"$D pkg.inner:\"\n"
    "comp \"$D li\"\n"
    "comp \"$D -P lib li\"\n"
    "comp \"$D --path=lib libmod:\"\n"
    "comp \"$D --by-value jo\"\n";

/* Replies are what bash puts in place of the part after the last ":" (the
 * default COMP_WORDBREAKS splits words there). */
static const char spec_expected[] =
    "[jo] <jobs:>\n"
    "[jobs:] <Job><X><os><scale>\n"
    "[jobs:s] <scale>\n"
    "[jobs:Job.] <Job.limit><Job.run>\n"
    "[jobs:Job.r] <Job.run>\n"
    "[jobs:nothere] \n"
    "[nothere:] \n"
    "[pk] <pkg.><pkg:>\n"
    "[pkg.] <pkg.inner:>\n"
    "[pkg:] <top>\n"
    "[pkg.inner:] <h>\n"
    "[li] \n"
    "[-P lib li] <libmod:>\n"
    "[--path=lib libmod:] <g>\n"
    "[--by-value jo] <jobs>\n";

Test(completion, module_and_attributes_never_imported)
{
    cpk_proc p;
    run(&p, "", spec_body);
    cr_assert_str_eq(p.out, spec_expected);
    cpk_proc_free(&p);
    char imported[128];
    snprintf(imported, sizeof(imported), "%s/IMPORTED", dir);
    cr_assert(access(imported, F_OK) != 0,
              "completion ran the module's code");
}

/* With ":" and "=" not breaking words, replies are the whole word. */
Test(completion, without_wordbreaks)
{
    cpk_proc p;
    run(&p, "",
        "COMP_WORDBREAKS=$' \\t\\n'\n"
        "comp \"$D jobs:s\"\n"
        "comp \"$D --output=a\"\n");
    cr_assert_str_eq(p.out, "[jobs:s] <jobs:scale>\n"
                            "[--output=a] <--output=a file.pkl>\n");
    cpk_proc_free(&p);
}

/* Every option (short and long) that `prog --help` prints anywhere (but
 * in `quotes`, as `python -m`) is
 * offered for "-", both read from the program and from the built-in list
 * (the program not runnable); nothing else is. */
static const char options_body[] =
    "check() {\n"
    "  local prog=$1 shown=$2 o bad=0\n"
    "  comp \"$shown -\" >/dev/null\n"
    "  local offered=\" ${COMPREPLY[*]} \"\n"
    "  offered=${offered//=/}\n"
    "  for o in $(\"$prog\" --help | sed 's/`[^`]*`//g' | grep -oE -- "
    "'(^|[^A-Za-z0-9-])--?[A-Za-z][A-Za-z0-9-]*' | "
    "sed 's/^[^-]*//' | sort -u); do\n"
    "    [[ $offered == *\" $o \"* ]] || { echo \"$shown: $o missing\"; bad=1; }\n"
    "  done\n"
    "  for o in $offered; do\n"
    "    \"$prog\" --help | grep -qE -- \"(^|[^A-Za-z0-9-])$o([^A-Za-z0-9-]|$)\" ||\n"
    "      { echo \"$shown: $o offered, not in --help\"; bad=1; }\n"
    "  done\n"
    "  echo \"$shown: $(wc -w <<<\"$offered\") options, bad=$bad\"\n"
    "}\n"
    "check $D $D\n"
    "check $L $L\n"
    "check $D /nonexistent/cloudpickle-dump\n"
    "check $L /nonexistent/cloudpickle-load\n";

Test(completion, every_option_of_help)
{
    cpk_proc p;
    run(&p, "", options_body);
    cr_assert(strstr(p.out, "missing") == NULL &&
                  strstr(p.out, "offered, not") == NULL &&
                  strstr(p.out, "bad=1") == NULL,
              "%s", p.out);
    /* Four checks ran, each over more than ten options. */
    int n = 0;
    for (const char *s = p.out; (s = strstr(s, " options, bad=0")) != NULL;
         s++)
        n++;
    cr_assert_eq(n, 4, "%s", p.out);
    cpk_proc_free(&p);
}

/* Registered for both programs by name; with bash-completion's own
 * helpers loaded first, the same replies. */
Test(completion, registered_and_with_bash_completion)
{
    cpk_proc p;
    run(&p, "", "complete -p cloudpickle-dump cloudpickle-load\n");
    cr_assert_str_eq(p.out, "complete -F _cloudpickle cloudpickle-dump\n"
                            "complete -F _cloudpickle cloudpickle-load\n");
    cpk_proc_free(&p);
    if (access(BASH_COMPLETION, R_OK) != 0)
        cr_skip_test("%s not installed (scripts/install-deps check installs "
                     "bash-completion)", BASH_COMPLETION);
    run(&p, "shopt -s extglob progcomp; source " BASH_COMPLETION,
        spec_body);
    cr_assert_str_eq(p.out, spec_expected);
    cpk_proc_free(&p);
    run(&p, "shopt -s extglob progcomp; source " BASH_COMPLETION,
        values_body);
    cr_assert_str_eq(p.out, values_expected);
    cpk_proc_free(&p);
}

/* --compat offers exactly the targets the program accepts. */
Test(completion, compat_values_are_the_accepted_ones)
{
    cpk_proc p;
    run(&p, "", "comp \"$D --compat \"\n");
    char *reply = strchr(p.out, ']');
    cr_assert(reply != NULL, "%s", p.out);
    int offered = 0;
    for (char *v = strchr(reply, '<'); v != NULL; v = strchr(v, '<')) {
        char *end = strchr(++v, '>');
        cr_assert(end != NULL);
        *end = '\0';
        cr_assert(cpk_compat_valid(v), "completion offers %s", v);
        offered++;
        v = end + 1;
    }
    /* Every accepted value, from the list the usage message prints. */
    char list[] = CPK_COMPAT_VALUES;
    const char *seen[64];
    int accepted = 0;
    for (char *tok = strtok(list, " ,:"); tok != NULL;
         tok = strtok(NULL, " ,:")) {
        int dup = 0;
        for (int i = 0; i < accepted; i++)
            dup |= strcmp(seen[i], tok) == 0;
        if (!dup && cpk_compat_valid(tok) && accepted < 64)
            seen[accepted++] = tok;
    }
    cr_assert_eq(offered, accepted, "offered %d of %d values", offered,
                 accepted);
    cpk_proc_free(&p);
}
