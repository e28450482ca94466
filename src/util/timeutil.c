/* Parsing and printing of times, durations and sizes. */
#include "config.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "timeutil.h"

#define MAX_DURATION_MS	(100LL * 24 * 3600 * 1000)

char *
timeutil_rfc3339(char *buf, time_t t)
{
	struct tm	tm;

	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(buf, RFC3339_LEN, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, RFC3339_LEN, "1970-01-01T00:00:00Z");
	return buf;
}

long long
timeutil_parse_duration(const char *s)
{
	long long	 whole = 0, frac = 0, scale = 1, unit, ms;
	const char	*p = s;
	int		 digits = 0, nonzero = 0;

	while (isdigit((unsigned char)*p)) {
		whole = whole * 10 + (*p - '0');
		nonzero |= *p != '0';
		p++;
		digits++;
		if (whole > MAX_DURATION_MS)
			return -1;
	}
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return -1;	/* "5." or ".": say what you mean */
		while (isdigit((unsigned char)*p)) {
			/* Nanosecond precision; later digits only count
			 * as "more than nothing". */
			if (scale < 1000000000LL) {
				frac = frac * 10 + (*p - '0');
				scale *= 10;
			}
			nonzero |= *p != '0';
			p++;
			digits++;
		}
	}
	if (digits == 0)
		return -1;
	if (*p == '\0' || strcmp(p, "s") == 0)
		unit = 1000;
	else if (strcmp(p, "ms") == 0)
		unit = 1;
	else if (strcmp(p, "m") == 0)
		unit = 60 * 1000;
	else if (strcmp(p, "h") == 0)
		unit = 3600 * 1000;
	else if (strcmp(p, "d") == 0)
		unit = 24 * 3600 * 1000;
	else
		return -1;
	if (whole > MAX_DURATION_MS / unit)
		return -1;
	/* frac < 10^9 and unit <= 8.64 * 10^7: no overflow. */
	ms = whole * unit + frac * unit / scale;
	if (ms > MAX_DURATION_MS)
		return -1;
	/* A positive value that rounds to nothing still sets a limit. */
	if (ms == 0 && nonzero)
		ms = 1;
	return ms;
}

char *
timeutil_duration(char *buf, size_t n, long long ms)
{
	if (ms < 0)
		ms = 0;
	if (ms < 1000)
		snprintf(buf, n, "%lldms", ms);
	else if (ms < 60 * 1000)
		snprintf(buf, n, "%lld.%llds", ms / 1000, (ms % 1000) / 100);
	else if (ms < 3600 * 1000)
		snprintf(buf, n, "%lldm%02llds", ms / 60000,
		    (ms % 60000) / 1000);
	else
		snprintf(buf, n, "%lldh%02lldm", ms / 3600000,
		    (ms % 3600000) / 60000);
	return buf;
}

long long
timeutil_parse_size(const char *s)
{
	long long	 v = 0, mult = 1;
	const char	*p = s;

	if (!isdigit((unsigned char)*p))
		return -1;
	while (isdigit((unsigned char)*p)) {
		v = v * 10 + (*p++ - '0');
		if (v > (1LL << 50))
			return -1;
	}
	switch (tolower((unsigned char)*p)) {
	case '\0':
		return v;
	case 'k':
		mult = 1LL << 10;
		break;
	case 'm':
		mult = 1LL << 20;
		break;
	case 'g':
		mult = 1LL << 30;
		break;
	default:
		return -1;
	}
	p++;
	if (*p == 'i' || *p == 'I')
		p++;
	if (*p == 'b' || *p == 'B')
		p++;
	if (*p != '\0' || v > LLONG_MAX / mult)
		return -1;
	return v * mult;
}

long long
timeutil_now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
