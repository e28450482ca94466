/*
 * A run's verdict, and its name as the timeline, the breaker and the
 * verdict line write it.
 *
 *	const char *s = verdict_name(VERDICT_FAIL);	"FAIL"; a value
 *						out of range is "ERROR"
 *	enum verdict v;
 *	if (verdict_parse("PASS", &v) == -1)	not a verdict's name
 *		...
 *
 * The names are static strings; nothing here allocates.
 */
#ifndef VERDICT_H
#define VERDICT_H

enum verdict {
	VERDICT_PASS,
	VERDICT_FAIL,
	VERDICT_ERROR,
	VERDICT_INTERRUPTED
};

const char	*verdict_name(enum verdict);
int		 verdict_parse(const char *, enum verdict *);

#endif /* VERDICT_H */
