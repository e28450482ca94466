/* A run's verdict: set in one place, and the status forge exits with. */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>

#include "forge.h"
#include "verdict.h"
#include "verify_int.h"
#include "xmalloc.h"

/*
 * The one place a run's verdict, status and cause are set.  failed is a
 * format for what failed (the breaker's and the timeline's "failed"), or
 * NULL.
 */
void
verify_result_set(struct run *r, enum verdict v, int status, int signo,
    const char *failed, ...)
{
	va_list	ap;

	r->res.verdict = v;
	r->res.status = status;
	r->res.signo = signo;
	r->res.timed_out = 0;		/* judge_step() sets it after */
	r->res.unstarted = 0;		/* and not_started() this */
	free(r->res.failed);
	r->res.failed = NULL;
	if (failed != NULL) {
		va_start(ap, failed);
		r->res.failed = xvasprintf(failed, ap);
		va_end(ap);
	}
}

/* A commit of a range that could not be verified at all. */
void
verify_result_error(struct run *r, int status, const char *what)
{
	verify_result_set(r, VERDICT_ERROR, status, 0, "%s", what);
}

/* Interrupted by the signal that is pending. */
void
verify_result_interrupted(struct run *r, int signo)
{
	verify_result_set(r, VERDICT_INTERRUPTED, 128 + signo, signo, NULL);
}

/* Until the steps run, a failure is forge's: ERROR, saying what it was
 * doing then. */
void
verify_result_doing(struct run *r, const char *what)
{
	verify_result_set(r, VERDICT_ERROR, EXIT_FORGE, 0, "%s", what);
}

/* What forge exits with: the step's own status, or by the verdict. */
int
verify_result_exit(const struct run *r, int by_verdict)
{
	if (!by_verdict || r->res.verdict == VERDICT_INTERRUPTED)
		return r->res.status;
	if (r->res.timed_out)
		return EXIT_TIMEOUT;
	switch (r->res.verdict) {
	case VERDICT_PASS:
		return 0;
	case VERDICT_FAIL:
		return 1;
	default:
		return EXIT_FORGE;
	}
}
