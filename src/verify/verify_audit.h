/*
 * The audit: a verdict that took a fast path -- a cached PASS, a reused
 * or incremental copy, a range's carried copy -- checked against a fresh
 * one, as nix-build --check builds again to compare.
 *
 *	if (verify_audit_due(r, o, cached))
 *		verify_audit(r, o);
 *
 * verify_audit_due() says whether the run's verdict is to be checked:
 * it took a fast path (it sets r->fast to which: cached, that the run
 * was answered from the cache), the verdict is a PASS or a FAIL, and
 * the audit is on -- --audit, else FORGE_AUDIT in the environment, else
 * forge.audit: every such run (true, 1), none (false, 0), or one in N,
 * drawn at random.  It says why not, where the value of FORGE_AUDIT is
 * none forge takes.
 *
 * verify_audit() runs the same steps on the same source in a fresh copy
 * (in place, for a cached in-place PASS): no cache, no parked copy, no
 * setup skipped, nothing kept, its output and forge's lines of it in the
 * run's log alone, its stdin /dev/null.  Then:
 *	the same verdict: one line says so;
 *	another tree (the working state changed meanwhile), or the fresh
 *	run could not be verified: said, and the fast verdict stands;
 *	another verdict: said loudly, a "divergence" event appended to the
 *	timeline (both verdicts, the mode, the tree, the fast path), and
 *	the fresh verdict becomes the run's (r->diverged): the caller
 *	drops the cached verdict, or the parked or carried copy, and
 *	records and exits by the fresh verdict.
 * A signal during the audit interrupts the run, as anywhere else.
 */
#ifndef VERIFY_AUDIT_H
#define VERIFY_AUDIT_H

struct run;
struct verify_opts;

int	verify_audit_due(struct run *, const struct verify_opts *, int);
void	verify_audit(struct run *, const struct verify_opts *);

#endif /* VERIFY_AUDIT_H */
