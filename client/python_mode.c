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

static int is_option(const char *arg, const char *name)
{
    size_t n = strlen(name);
    return strncmp(arg, name, n) == 0 && (arg[n] == '\0' || arg[n] == '=');
}

int mwc_python_mode(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (is_option(argv[i], "--diff") || is_option(argv[i], "--hatchet"))
            return 1;
    return 0;
}

int mwc_python_exec(int argc, char **argv)
{
    /* MW_PYTHONDIR in the environment: the build tree's tests point it at
     * the source tree's python/; otherwise the install's site-packages. */
    const char *dir = getenv("MW_PYTHONDIR");
    if (dir == NULL || dir[0] == '\0')
        dir = MW_PYTHONDIR;
    char probe[PATH_MAX];
    snprintf(probe, sizeof probe, "%s/mpiwatch/cli.py", dir);
    if (access(probe, R_OK) != 0) {
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
