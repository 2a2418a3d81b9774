/* cupti_cb_run_exec.c: runs the program, forwards SIGINT and SIGTERM to it,
 * waits, and turns its end into the runner's exit status. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cupti_cb_run.h"

static volatile sig_atomic_t child_pid;

/* A signal the terminal generated (Ctrl-C) reached the program already,
 * which is in our process group: forwarding it would deliver it twice. One
 * sent by kill(2) to the runner alone is passed on. */
static void forward(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (child_pid > 0 && si->si_code != SI_KERNEL)
		kill(child_pid, sig);
}

static long long now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static struct sigaction old_int, old_term;

/* In the child: the dispositions the runner was given (an ignored SIGINT
 * stays ignored, as under nohup or `&`), then exec, or report errno through
 * the close-on-exec pipe. */
static void run_child(char **argv, int fd)
{
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	execvp(argv[0], argv);
	int e = errno;
	if (write(fd, &e, sizeof e) < 0)
		_exit(CUPTI_CB_RUN_EXIT_NOEXEC);
	_exit(CUPTI_CB_RUN_EXIT_NOEXEC);
}

static int wait_child(pid_t pid, int *sig)
{
	int st;
	*sig = 0;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return CUPTI_CB_RUN_EXIT_FAILED;
	if (WIFSIGNALED(st)) {
		*sig = WTERMSIG(st);
		return 128 + WTERMSIG(st);
	}
	return WEXITSTATUS(st);
}

int cupti_cb_run_exec(char **argv, struct cupti_cb_run_child *c)
{
	int fds[2];
	struct sigaction sa;
	memset(c, 0, sizeof *c);
	if (pipe2(fds, O_CLOEXEC))
		return -1;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = forward;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	/* A signal the runner was told to ignore is not ours to pass on. */
	sigaction(SIGINT, NULL, &old_int);
	sigaction(SIGTERM, NULL, &old_term);
	if (old_int.sa_handler != SIG_IGN)
		sigaction(SIGINT, &sa, NULL);
	if (old_term.sa_handler != SIG_IGN)
		sigaction(SIGTERM, &sa, NULL);
	long long t0 = now_ns();
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (!pid)
		run_child(argv, fds[1]);
	child_pid = pid;
	close(fds[1]);
	int e = 0;
	ssize_t r;
	while ((r = read(fds[0], &e, sizeof e)) < 0 && errno == EINTR)
		;
	close(fds[0]);
	c->pid = (long)pid;
	c->status = wait_child(pid, &c->signal);
	c->wall_ns = now_ns() - t0;
	child_pid = 0;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (r == (ssize_t)sizeof e) {
		c->exec_errno = e;
		c->status = CUPTI_CB_RUN_EXIT_NOEXEC;
	}
	return 0;
}
