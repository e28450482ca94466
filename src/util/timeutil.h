/*
 * Times and durations as forge reads and writes them.
 *
 * timeutil_parse_duration() takes what --timeout and forge.timeout take: a
 * non-negative number with an optional unit, "ms", "s" (the default),
 * "m", "h" or "d", e.g. "90s", "1.5m", "10m", "2h"; 0 means no limit.
 */
#ifndef TIMEUTIL_H
#define TIMEUTIL_H

#include <stddef.h>
#include <time.h>

#define RFC3339_LEN	32

/* "2026-11-30T01:15:32Z"; buf holds RFC3339_LEN bytes. */
char	*timeutil_rfc3339(char *, time_t);
/* Milliseconds; -1 on a malformed value or one past 100 days. */
long long timeutil_parse_duration(const char *);
/* "850ms", "12.3s", "4m05s", "2h01m" into buf of size n. */
char	*timeutil_duration(char *, size_t, long long);
/* Milliseconds on the monotonic clock. */
long long timeutil_now_ms(void);
/* Parse a size with an optional k, m or g suffix (binary); -1 if bad. */
long long timeutil_parse_size(const char *);

#endif /* TIMEUTIL_H */
