/*
 * Colour, decided as git decides it.
 *
 * The setting is color.forge, else color.ui: "auto" (the default),
 * "always", "never", or a boolean as git takes it (true means auto).
 * Auto colours a terminal only, and not one whose TERM is unset or
 * "dumb"; NO_COLOR set to anything but the empty string means never,
 * whatever the setting.
 *
 *	if (color_want(cfg.color, STDERR_FILENO))	settings.h reads it
 *		fprintf(stderr, "%s%s" COLOR_RESET, color_verdict(v), v);
 */
#ifndef COLOR_H
#define COLOR_H

#define COLOR_NEVER	0
#define COLOR_ALWAYS	1
#define COLOR_AUTO	2

#define COLOR_RESET	"\033[m"

/* Whether to colour output to fd, with this mode. */
int		 color_want(int, int);
/* The same from what it depends on (exposed for tests): whether fd is
 * a terminal, TERM and NO_COLOR (either may be NULL). */
int		 color_decide(int, int, const char *, const char *);
/* PASS green, FAIL red, ERROR and INTERRUPTED yellow; "" otherwise. */
const char	*color_verdict(const char *);

#endif /* COLOR_H */
