/*
 * Processes, as /proc shows them.  Nothing here keeps state or prints.
 *
 *	struct proc_stat ps;
 *	proc_stat(pid, &ps)		-1 if there is no such process
 *	proc_start_time(pid, &start)	its start, in clock ticks since boot
 *	proc_is(pid, start)		pid is still that process (a zombie
 *					too: it is not reaped, so its pid
 *					and group are not anyone else's)
 *	proc_alive(pid, start)		and it has not exited: a zombie is
 *					dead, and holds nothing any more
 *	proc_boot_id()			this boot, "" if unknown
 *	proc_kill_in(dir, tag, ms)	SIGKILL every process whose current
 *					or root directory, or an open file,
 *					is dir or below it, and whose
 *					environment holds the entry tag
 *					("FORGE_RUN=<id>": it is the run's),
 *					until none is left or ms have
 *					passed; never forge itself or one
 *					of its ancestors
 *
 * A start time of 0 means "unknown": such a pid proves nothing, and
 * proc_is() says no.
 */
#ifndef PROC_H
#define PROC_H

#include <sys/types.h>

struct proc_stat {
	char			state;		/* R, S, D, Z, T, X ... */
	pid_t			ppid;
	pid_t			pgrp;
	unsigned long long	start;
};

int		 proc_stat(pid_t, struct proc_stat *);
int		 proc_start_time(pid_t, unsigned long long *);
int		 proc_is(pid_t, unsigned long long);
int		 proc_alive(pid_t, unsigned long long);
const char	*proc_boot_id(void);
int		 proc_uses_dir(pid_t, const char *);
int		 proc_kill_in(const char *, const char *, long long);
/* Does pid's environment (as it was exec'd with) hold entry, exactly? */
int		 proc_has_env(pid_t, const char *);

#endif /* PROC_H */
