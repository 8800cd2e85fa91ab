/* bgpd -C on many files after one start-up: an LD_PRELOAD shim for netauto.validate.external.frr_bgpd.
 *
 * `bgpd -C -f FILE` spends ~90% of its CPU starting up (libraries, YANG modules, command tree, privileges) before
 * it opens FILE; the check itself is a few milliseconds. One bgpd cannot check two files (resetting between them
 * needs `no router bgp`, which aborts under -C), but a process forked at the moment bgpd opens its config file is
 * a bgpd that has done exactly that start-up and nothing else.
 *
 * With NETAUTO_BGPD_BATCH=LIST in the environment, the bgpd started as `bgpd -C ... -f LIST` reads LIST (one
 * config path per line) when it opens it (FRR 8.4 lib/vty.c vty_read_config: `fopen(fullpath, "r")`), then for
 * each path: writes netauto's BEGIN frame on stdout, forks, and the child returns bgpd's own fopen of that path,
 * so bgpd's unchanged code reads and checks it and exits (lib/libfrr.c frr_config_fork: dry-run reads the config
 * and calls exit(0)), its stdout/stderr on the batch's stdout; the parent waits and writes the END frame with the
 * child's exit status (128 + signal number when it died of a signal, as sh reports it). Every file is checked by
 * its own child, from the same start-up state; the parent never reads a config. A child gets SIGALRM after
 * NETAUTO_BGPD_TIMEOUT seconds (default 30), so a hang is that file's failure, not the batch's.
 *
 * Any other fopen is passed through untouched. Without the variable this library does nothing.
 * Built by netauto with the system C compiler (`cc -shared -fPIC`); no compiler: one bgpd per file, as before.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define BEGIN "\n@@NETAUTO-BEGIN@@\n"

typedef FILE *(*fopen_fn)(const char *, const char *);

static fopen_fn real(const char *name)
{
	return (fopen_fn)dlsym(RTLD_NEXT, name);
}

static void say(const char *text)
{
	size_t left = strlen(text);
	while (left > 0) {
		ssize_t n = write(STDOUT_FILENO, text, left);
		if (n <= 0)
			return;
		text += n;
		left -= (size_t)n;
	}
}

static int status_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 255;
}

/* Runs in bgpd when it opens LIST: one child per listed file; the parent never returns. */
static FILE *run_batch(fopen_fn open_file, const char *list, const char *mode)
{
	FILE *paths = open_file(list, "r");
	const char *limit = getenv("NETAUTO_BGPD_TIMEOUT");
	unsigned seconds = limit ? (unsigned)strtoul(limit, NULL, 10) : 30;
	char line[4096];

	if (paths == NULL)
		return NULL; /* bgpd reports "can't open configuration file", netauto falls back */
	while (fgets(line, sizeof(line), paths) != NULL) {
		char frame[64];
		int status = 0;
		pid_t pid;

		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '\0')
			continue;
		fflush(NULL);
		say(BEGIN);
		pid = fork();
		if (pid == 0) {
			fclose(paths);
			unsetenv("NETAUTO_BGPD_BATCH");
			alarm(seconds);
			return open_file(line, mode); /* bgpd goes on reading this file, checks it and exits */
		}
		if (pid < 0)
			status = 255 << 8;
		else
			while (waitpid(pid, &status, 0) < 0)
				if (errno != EINTR) {
					status = 255 << 8;
					break;
				}
		snprintf(frame, sizeof(frame), "\n@@NETAUTO-RC %d@@\n", status_code(status));
		say(frame);
	}
	fclose(paths);
	fflush(NULL);
	_exit(0);
}

static FILE *intercept(const char *name, const char *path, const char *mode)
{
	fopen_fn open_file = real(name);
	const char *list = getenv("NETAUTO_BGPD_BATCH");

	if (open_file == NULL)
		return NULL;
	if (list != NULL && path != NULL && strcmp(path, list) == 0)
		return run_batch(open_file, list, mode);
	return open_file(path, mode);
}

FILE *fopen(const char *path, const char *mode)
{
	return intercept("fopen", path, mode);
}

FILE *fopen64(const char *path, const char *mode)
{
	return intercept("fopen64", path, mode);
}
