/* site.h - what site.py would do for the programs, done in C (host.c
 * starts Python with site_import = 0 and calls cpk_site_init).
 *
 * `import site` cost each run more than a third of `python3 -c pass`:
 * `os` and `_collections_abc` (5 M instructions), the `import` lines of
 * .pth files (Debian's distutils-precedence.pth imports os again for
 * setuptools' distutils shim), sitecustomize. What the programs need of
 * it is done here, as the site.py of the Python they were built for does
 * it (scripts/site_layout.py writes that version's facts at build time):
 *
 * - a virtual environment (pyvenv.cfg beside sys.executable or one level
 *   up): sys.prefix and sys.exec_prefix are it, sys._home its `home`,
 *   its site directories come first, the system's only with
 *   `include-system-site-packages = true`;
 * - each site directory that exists is appended to sys.path, then the
 *   directories named by the path lines of its *.pth files (sorted, dot
 *   files skipped), as site.addsitedir does;
 * - builtins quit, exit, copyright, credits, license, help.
 *
 * Deferred: the `import` lines of .pth files and `import sitecustomize`
 * run, in site.py's order and through site.py's own functions, the first
 * time an import finds no module (a finder at the end of sys.meta_path),
 * and that import is then retried. Those lines install import hooks
 * (editable installs' finders, namespace packages, the distutils shim)
 * or do things the programs do not need (ccloudpickle's own alias hook);
 * a hook that finds modules is still there when a module is missing.
 * What they print goes to standard error.
 *
 * Visible differences from `python -I`: sys.flags.no_site is 1, `site`
 * is not in sys.modules (importing it later runs no site.main()), and
 * start-up code in .pth import lines or sitecustomize runs late or not at
 * all (a coverage process_startup hook, for one).
 */
#ifndef CPK_SITE_H
#define CPK_SITE_H

/* After Py_InitializeFromConfig (site_import = 0), before anything else
 * runs. Returns 0, or -1 with a Python exception set. */
int cpk_site_init(void);

#endif
