#include "python_mode.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

#ifndef MW_PYTHON
#define MW_PYTHON "python3"
#endif
#ifndef MW_PYTHONDIR
#define MW_PYTHONDIR ""
#endif
#ifndef MW_PREFIX
#define MW_PREFIX ""
#endif

static int is_option(const char *arg, const char *name)
{
    size_t n = strlen(name);
    return strncmp(arg, name, n) == 0 && (arg[n] == '\0' || arg[n] == '=');
}

int mwc_python_mode(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (is_option(argv[i], "--diff") || is_option(argv[i], "--hatchet") ||
            is_option(argv[i], "--fail-if"))
            return 1;
    return 0;
}

/* The package under the prefix this client runs from (PREFIX/bin/mpiwatch),
 * so that a copied or relocated prefix (a cluster module, a DESTDIR) works:
 * MW_PYTHONDIR with the configured prefix replaced; 0 if it is not there. */
static int relocated(char *out, size_t size)
{
    size_t n = strlen(MW_PREFIX);
    char self[PATH_MAX], probe[PATH_MAX];
    if (n == 0 || strncmp(MW_PYTHONDIR, MW_PREFIX, n) != 0)
        return 0;
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        return 0;
    self[len] = '\0';
    for (int up = 0; up < 2; up++) {   /* PREFIX/bin/mpiwatch -> PREFIX */
        char *slash = strrchr(self, '/');
        if (slash == NULL)
            return 0;
        *slash = '\0';
    }
    int w = snprintf(out, size, "%s%s", self, MW_PYTHONDIR + n);
    if (w < 0 || (size_t)w >= size)
        return 0;
    w = snprintf(probe, sizeof probe, "%s/mpiwatch/cli.py", out);
    return w > 0 && (size_t)w < sizeof probe && access(probe, R_OK) == 0;
}

int mwc_python_exec(int argc, char **argv)
{
    /* MW_PYTHONDIR in the environment: the build tree's tests point it at
     * the source tree's python/; otherwise the install's site-packages. */
    char moved[PATH_MAX];
    const char *dir = getenv("MW_PYTHONDIR");
    if (dir == NULL || dir[0] == '\0')
        dir = relocated(moved, sizeof moved) ? moved : MW_PYTHONDIR;
    char probe[PATH_MAX];
    errno = 0;
    int w = snprintf(probe, sizeof probe, "%s/mpiwatch/cli.py", dir);
    if (w < 0 || (size_t)w >= sizeof probe)
        errno = ENAMETOOLONG;
    if (errno == ENAMETOOLONG || access(probe, R_OK) != 0) {
        fprintf(stderr, "mpiwatch: the Python package that runs --diff and --hatchet is not in %s "
                        "(%s): run make install, or set MW_PYTHONDIR to the source tree's python/\n",
                dir, strerror(errno));
        return 1;
    }
    const char *old = getenv("PYTHONPATH");
    size_t len = strlen(dir) + (old ? strlen(old) : 0) + 2;
    char *path = mwc_calloc(len, 1);
    snprintf(path, len, "%s%s%s", dir, old && old[0] ? ":" : "", old ? old : "");
    setenv("PYTHONPATH", path, 1);
    free(path);
    /* --html makes each run's page with this client (mpiwatch --report --html). */
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        setenv("MW_CLIENT", self, 1);
    }
    char **args = mwc_calloc((size_t)argc + 3, sizeof *args);
    args[0] = (char *)MW_PYTHON;
    args[1] = (char *)"-m";
    args[2] = (char *)"mpiwatch.cli";
    for (int i = 1; i < argc; i++)
        args[i + 2] = argv[i];
    execv(MW_PYTHON, args);
    fprintf(stderr, "mpiwatch: cannot run %s for %s: %s\n", MW_PYTHON, argv[1], strerror(errno));
    free(args);
    return 1;
}
