/*
 * forge verify, one run: the working state's (or, with --staged or
 * --rev=C, that tree's) copy built and proved, or a parked copy reused,
 * or a cached PASS replayed; then the steps, an audit if one is due, the
 * event recorded and the verdict said.
 *
 *	if (!o.range)
 *		return verify_one(&o);		the exit status (forge.h)
 *
 * It opens and closes the command's context itself, and dies of the
 * signal that interrupted the steps, so that whoever ran forge sees the
 * cause.
 */
#ifndef VERIFY_ONE_H
#define VERIFY_ONE_H

struct verify_opts;

int	verify_one(const struct verify_opts *);

#endif /* VERIFY_ONE_H */
