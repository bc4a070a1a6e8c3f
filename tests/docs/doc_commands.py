"""doc_commands - run every `$ ` command of README.md and doc/*.md.

    doc_commands.py SOURCE_DIR BUILD_DIR [FILE...]

The rule: a line that starts with `$ ` inside a fenced code block (```) is
a command, and the lines after it, up to the next `$ ` line or the end of
the block, are its output as a terminal shows it (standard output and
standard error together). A line `> ...` right after a `$ ` line continues
the command (as the shell's PS2 prompt shows it). Each block runs as one
bash script in a fresh temporary directory (under TMPDIR) that looks like
a clone after `make`: `build/` (a link to BUILD_DIR) and a copy of
`examples/`; so `cd` and variables carry from one command to the next in
a block, never to another block. The build's programs come first on PATH,
PYTHONPATH finds the build's `ccloudpickle`, HOME is the block's
directory, and `python3` is the Python the build is for (sys.executable).

Output is compared line by line, trailing blanks ignored, with one
wildcard: `...` inside a line matches any text on that line, and a line
that is only `...` (blanks around it allowed) matches any number of lines,
none included. A command
whose output is not shown must print nothing. A command that cannot run
in a test (installing, the network, `make check` itself) is written
without `$ `, or in a block whose info string holds `notest`
(```` ```sh notest ````). A `$ ` line in an indented code block, which
this script would not run, is refused.

Exit status 0 when every command printed what is shown, 1 otherwise
(each failure as FILE:LINE, the command, expected and actual output),
2 on a usage error.
"""
import difflib
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

MARK = "\x1eCPK-DOC-CMD %d\x1e"
BLOCK_TIMEOUT = 60


class Command:
    def __init__(self, path, line, text):
        self.path, self.line, self.text = path, line, text
        self.expected = []


def parse(path, name):
    """Return (blocks, errors): blocks are lists of Command; errors name
    the file as NAME."""
    blocks, errors = [], []
    fence = None        # the fence string while inside a fenced block
    skip = False
    block = []
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for no, raw in enumerate(lines, 1):
        line = raw.rstrip()
        if fence is None:
            m = re.match(r"^ {0,3}(`{3,}|~{3,})(.*)$", line)
            if m:
                fence, skip, block = m.group(1), "notest" in m.group(2), []
                continue
            if re.match(r"^( {4,}|\t)\$ ", line):
                errors.append("%s:%d: a `$ ` line outside a fenced block "
                              "is never run: fence it (```) or drop the "
                              "`$ `" % (name, no))
            continue
        close = line.strip()
        if len(close) >= len(fence) and close == fence[0] * len(close):
            if block and not skip:
                blocks.append(block)
            fence = None
            continue
        if skip:
            continue
        if line.startswith("$ "):
            block.append(Command(path, no, line[2:]))
        elif block and line.startswith("> ") and not block[-1].expected:
            block[-1].text += "\n" + line[2:]
        elif block:
            block[-1].expected.append(line)
    if fence is not None:
        errors.append("%s: a fenced block is not closed" % name)
    return blocks, errors


def line_matches(want, got):
    if "..." not in want:
        return want == got
    parts = [re.escape(p) for p in want.split("...")]
    return re.fullmatch(".*".join(parts), got, re.S) is not None


def matches(want, got):
    """Does the list of lines got match want, with `...` wildcards?"""
    if not want:
        return not got
    if want[0].strip() == "...":
        return any(matches(want[1:], got[i:]) for i in range(len(got) + 1))
    return bool(got) and line_matches(want[0], got[0]) and \
        matches(want[1:], got[1:])


def environment(top, build):
    # What would change the programs' behaviour goes; what make sanitize
    # and make coverage set (LD_PRELOAD, ASAN_OPTIONS, PYTHONMALLOC,
    # CPK_COVERAGE) stays.
    env = {k: v for k, v in os.environ.items()
           if k == "PYTHONMALLOC" or
           not k.startswith(("PYTHON", "CCLOUDPICKLE", "CLOUDPICKLE",
                             "VIRTUAL_ENV", "LC_"))}
    pybin = os.path.join(top, ".bin")
    env.update(
        PATH=os.pathsep.join([os.path.join(top, "build"), pybin,
                              "/usr/local/bin", "/usr/bin", "/bin"]),
        PYTHONPATH=os.path.join(top, "build"),
        HOME=top, LANG="C.UTF-8", TERM="dumb")
    env.pop("PS1", None)
    return env


def run_block(source, build, block):
    """Run one block; return the list of actual output lines per command."""
    root = tempfile.mkdtemp(prefix="doc-commands.")
    top = os.path.join(root, "clone")
    try:
        os.mkdir(top)
        os.symlink(build, os.path.join(top, "build"))
        shutil.copytree(os.path.join(source, "examples"),
                        os.path.join(top, "examples"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        # python3 is the build's Python, hidden in .bin so that it is not
        # part of what a command like `ls` sees.
        os.mkdir(os.path.join(top, ".bin"))
        os.symlink(sys.executable, os.path.join(top, ".bin", "python3"))
        # The mark keeps $? for the next command (`$ echo $?`).
        script = ["exec 2>&1 </dev/null",
                  "__cpk_mark() { __cpk_s=$?; printf '%s\\n' \"$1\"; "
                  "return $__cpk_s; }"]
        for i, cmd in enumerate(block):
            script.append("__cpk_mark '%s'" % (MARK % i))
            script.append(cmd.text)
        script.append("__cpk_mark '%s'" % (MARK % len(block)))
        path = os.path.join(root, "block.sh")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(script) + "\n")
        try:
            p = subprocess.run(["bash", "--noprofile", "--norc", path],
                               cwd=top, env=environment(top, build),
                               stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE,
                               timeout=BLOCK_TIMEOUT)
            out = p.stdout.decode("utf-8", "backslashreplace")
        except subprocess.TimeoutExpired as e:
            out = (e.stdout or b"").decode("utf-8", "backslashreplace")
            out += "\n(the block timed out after %d s)" % BLOCK_TIMEOUT
        results = []
        for i in range(len(block)):
            start = out.find(MARK % i)
            if start < 0:
                results.append(["(not run: the block stopped before it)"])
                continue
            start += len(MARK % i) + 1
            end = out.find(MARK % (i + 1), start)
            chunk = out[start:] if end < 0 else out[start:end]
            if chunk.endswith("\n"):
                chunk = chunk[:-1]
            results.append([l.rstrip() for l in chunk.split("\n")]
                           if chunk else [])
        return results
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main(argv):
    if len(argv) < 3:
        print("usage: doc_commands.py SOURCE_DIR BUILD_DIR [FILE...]",
              file=sys.stderr)
        return 2
    source, build = (os.path.abspath(a) for a in argv[1:3])
    files = argv[3:] or [os.path.join(source, "README.md")] + \
        sorted(glob.glob(os.path.join(source, "doc", "*.md")))
    failures, n_cmds, n_blocks = [], 0, 0
    for path in files:
        name = os.path.relpath(path, source)
        if name.startswith(".."):
            name = path
        blocks, errors = parse(path, name)
        failures.extend(errors)
        for block in blocks:
            n_blocks += 1
            n_cmds += len(block)
            for cmd, got in zip(block, run_block(source, build, block)):
                if matches(cmd.expected, got):
                    continue
                diff = "\n".join(difflib.unified_diff(
                    cmd.expected, got, "expected", "actual", lineterm=""))
                failures.append("%s:%d: $ %s\n%s" % (
                    name, cmd.line,
                    cmd.text.replace("\n", "\n> "),
                    diff))
    for f in failures:
        print(f, end="\n\n", file=sys.stderr)
    print("%d commands in %d blocks of %d files: %s" % (
        n_cmds, n_blocks, len(files),
        "%d failed" % len(failures) if failures else "all as shown"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
