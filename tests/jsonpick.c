/*
 * jsonpick: read JSON Lines on stdin and print fields of each object, so
 * shell tests can check forge's timeline without a JSON tool.
 *
 *	jsonpick [-s sep] path ...	one output line per input line: the
 *					value at each path (a.b.0.c), joined
 *					by sep (a tab); strings are printed
 *					raw, other values as JSON, a missing
 *					one as "-"
 *	jsonpick -c			only check: exit 1 if any line is not
 *					one JSON object
 *
 * Exits 1 when a line is not valid JSON (it says which).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "json.h"

static const struct jv *
walk(const struct jv *v, const char *path)
{
	char	*copy, *p, *comp, *end;
	long	 i;

	copy = strdup(path);
	for (p = copy; v != NULL && (comp = strsep(&p, ".")) != NULL;) {
		if (v->type == JV_ARR) {
			i = strtol(comp, &end, 10);
			v = *end == '\0' && i >= 0 && (size_t)i < v->len ?
			    v->items[i] : NULL;
		} else
			v = json_get(v, comp);
	}
	free(copy);
	return v;
}

int
main(int argc, char *argv[])
{
	const struct jv	*f;
	struct jv	*v;
	struct buf	 b = BUF_INIT;
	struct json	 j;
	const char	*sep = "\t";
	char		*line = NULL;
	size_t		 cap = 0, lineno = 0;
	ssize_t		 n;
	int		 ch, i, check = 0, bad = 0;

	while ((ch = getopt(argc, argv, "cs:")) != -1) {
		switch (ch) {
		case 'c':
			check = 1;
			break;
		case 's':
			sep = optarg;
			break;
		default:
			fprintf(stderr, "usage: jsonpick [-c] [-s sep] path "
			    "...\n");
			return 2;
		}
	}
	while ((n = getline(&line, &cap, stdin)) > 0) {
		lineno++;
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if ((v = json_parse(line, (size_t)n)) == NULL ||
		    v->type != JV_OBJ) {
			fprintf(stderr, "jsonpick: line %zu is not a JSON "
			    "object\n", lineno);
			json_free(v);
			bad = 1;
			continue;
		}
		for (i = optind; !check && i < argc; i++) {
			if (i > optind)
				fputs(sep, stdout);
			if ((f = walk(v, argv[i])) == NULL) {
				fputs("-", stdout);
			} else if (f->type == JV_STR) {
				fwrite(f->str, 1, f->len, stdout);
			} else {
				buf_reset(&b);
				json_init(&j, &b);
				json_value(&j, f);
				fputs(b.data, stdout);
			}
		}
		if (!check)
			putchar('\n');
		json_free(v);
	}
	free(line);
	buf_free(&b);
	return bad;
}
