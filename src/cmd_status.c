/* forge status: the breaker, the last verdict and events, or them as JSON. */
#include "config.h"

#include <err.h>
#include <libutil.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "breaker.h"
#include "cmd.h"
#include "color.h"
#include "contain.h"
#include "context.h"
#include "copies.h"
#include "event.h"
#include "forge.h"
#include "fs_vis.h"
#include "json.h"
#include "landlock.h"
#include "report.h"
#include "timeutil.h"
#include "xmalloc.h"

struct status_opts {
	int	json;
};

static const struct cmd_opt status_opts[] = {
	CMD_FLAG("json", 0, offsetof(struct status_opts, json), 1, 0,
	    "the breaker, the last verdict and the copies\n"
	    "forge keeps, as one JSON object (forge(1))"),
	CMD_END
};

static int	cmd_status(int, char **);

const struct cmd_entry cmd_status_entry = {
	"status",
	"",
	"Show the circuit breaker, the last verdict and the last few events.\n",
	status_opts,
	cmd_status
};

/* From the end: the first verify event met is the last one. */
static int
last_verdict(const struct jv *ev, void *arg)
{
	struct event	*last = arg;
	struct event	 seen;

	event_decode(&seen, ev);
	if (seen.type == NULL || strcmp(seen.type, "verify") != 0)
		return 0;
	(void)event_keep(last, ev);
	return 1;
}

/* The audit's divergences, all the timeline holds, and the last one's
 * time. */
struct divergences {
	long long	 n;
	char		*last;
};

static void
print_audit(const struct context *ctx, const struct divergences *d)
{
	if (d->n > 0)
		printf("audit: %lld divergence%s found, the last at %s: a "
		    "fast verdict a fresh copy contradicted (forge log)\n",
		    d->n, d->n == 1 ? "" : "s", d->last != NULL ?
		    fs_vis(d->last) : "?");
	else if (ctx->cfg.audit == 1)
		printf("audit: every fast verdict, none contradicted\n");
	else if (ctx->cfg.audit > 1)
		printf("audit: one fast verdict in %d, none contradicted\n",
		    ctx->cfg.audit);
}

static void
json_audit(struct json *j, const struct context *ctx,
    const struct divergences *d)
{
	json_key(j, "audit");
	json_open(j, '{');
	json_key(j, "every");
	json_int(j, ctx->cfg.audit);
	json_key(j, "divergences");
	json_int(j, d->n);
	json_key(j, "last_divergence");
	if (d->last != NULL)
		json_str(j, d->last);
	else
		json_null(j);
	json_close(j, '}');
}

static const char *
breaker_state(const struct breaker *b, int threshold)
{
	if (b->open)
		return "open";
	return threshold == 0 ? "off" : "closed";
}

static void
print_verdict(const struct event *ev)
{
	const char	*s;
	char		 d[32], tree[16], mode[64];

	s = ev->verdict;
	printf("last verdict: %s", s != NULL ? fs_vis(s) : "?");
	s = ev->time;
	printf(" at %s", s != NULL ? fs_vis(s) : "?");
	s = report_mode(ev, mode, sizeof(mode));
	printf(" (%s", s != NULL ? fs_vis(s) : "?");
	/* Cut the raw id, then escape it: never half an escape. */
	if ((s = ev->tree) != NULL) {
		snprintf(tree, sizeof(tree), "%.12s", s);
		printf(", tree %s", fs_vis(tree));
	}
	printf(", %s)", timeutil_duration(d, sizeof(d), ev->duration_ms));
	if ((s = ev->failed) != NULL)
		printf(": %s", fs_vis(s));
	printf("\n");
	/* Older events have none. */
	if ((s = ev->not_reused) != NULL)
		printf("last copy not reused: %s\n", fs_vis(s));
}

static void	print_copies(const char *);

static void
print_text(struct context *ctx, const struct breaker *b,
    const struct event *last, const struct divergences *d)
{
	struct events	 evs;
	const char	*v;
	int		 failed;

	if (b->open)
		printf("breaker: OPEN since %s, after %d failed verifications "
		    "in a row; forge verify refuses to run until "
		    "'forge breaker reset'\n", b->opened_at != NULL ?
		    b->opened_at : "(unknown)", b->streak);
	else if (ctx->cfg.threshold == 0)
		printf("breaker: off (forge.breakerThreshold is 0); %d failed "
		    "in a row\n", b->streak);
	else
		printf("breaker: closed (streak %d of %d)\n", b->streak,
		    ctx->cfg.threshold);
	v = last != NULL ? last->verdict : NULL;
	failed = v != NULL && strcmp(v, "FAIL") == 0;
	/* A last verdict of FAIL says what failed: one line, one time. */
	if (b->last_fail != NULL && !failed)
		printf("last failure: %s at %s\n", fs_vis(b->last_fail),
		    b->last_fail_at != NULL ? b->last_fail_at : "?");
	if (last != NULL)
		print_verdict(last);
	else
		printf("last verdict: none\n");
	print_audit(ctx, d);

	report_load(&evs, &ctx->state, NULL, 5);
	if (evs.n > 0) {
		printf("\n");
		report_table(&evs, stdout, color_want(ctx->cfg.color,
		    STDOUT_FILENO));
	}
	report_free(&evs);
	print_copies(ctx->repo.common);
}

/* A field of the event as it was recorded, or null. */
static void
field(struct json *j, const struct jv *ev, const char *key)
{
	const struct jv	*v = json_get(ev, key);

	json_key(j, key);
	if (v != NULL)
		json_value(j, v);
	else
		json_null(j);
}

static void
json_breaker(struct json *j, const struct breaker *b, int threshold)
{
	json_key(j, "breaker");
	json_open(j, '{');
	json_key(j, "state");
	json_str(j, breaker_state(b, threshold));
	json_key(j, "streak");
	json_int(j, b->streak);
	json_key(j, "threshold");
	json_int(j, threshold);
	json_key(j, "since");
	json_str(j, b->open ? b->opened_at : NULL);
	json_key(j, "last_failure");
	if (b->last_fail != NULL) {
		json_open(j, '{');
		json_key(j, "time");
		json_str(j, b->last_fail_at);
		json_key(j, "failed");
		json_str(j, b->last_fail);
		json_close(j, '}');
	} else
		json_null(j);
	json_close(j, '}');
}

static void
json_last(struct json *j, const struct event *last)
{
	static const char *const keys[] = { EVENT_TIME, EVENT_SESSION,
	    EVENT_MODE, EVENT_HEAD, EVENT_TREE, EVENT_VERDICT, EVENT_STATUS,
	    EVENT_DURATION_MS, EVENT_FAILED, EVENT_PARTIAL, EVENT_STEPS,
	    EVENT_CONTAIN_METHOD, EVENT_NOT_REUSED };
	size_t	i;

	json_key(j, "last_verdict");
	if (last == NULL) {
		json_null(j);
		return;
	}
	json_open(j, '{');
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		field(j, last->v, keys[i]);
	/* Recorded only when so. */
	json_key(j, EVENT_CONTAIN);
	json_bool(j, last->contain);
	json_key(j, EVENT_NETWORK);
	json_bool(j, last->network);
	json_close(j, '}');
}

/*
 * How --contain would contain a command here, and which ways this
 * machine offers, each tried.
 */
static void
json_containment(struct json *j, int setting)
{
	char	why[2][512];
	int	ok[2], m, abi;

	for (m = CONTAIN_METHOD_NAMESPACES; m <= CONTAIN_METHOD_LANDLOCK; m++)
		ok[m - 1] = contain_probe(m, why[m - 1], sizeof(why[0])) == 0;
	json_key(j, "containment");
	json_open(j, '{');
	json_key(j, "setting");
	json_str(j, contain_method_name(setting));
	json_key(j, "method");
	if (setting == CONTAIN_METHOD_AUTO)
		m = ok[0] ? CONTAIN_METHOD_NAMESPACES : ok[1] ?
		    CONTAIN_METHOD_LANDLOCK : -1;
	else
		m = ok[setting - 1] ? setting : -1;
	json_str(j, m != -1 ? contain_method_name(m) : NULL);
	for (m = CONTAIN_METHOD_NAMESPACES; m <= CONTAIN_METHOD_LANDLOCK;
	    m++) {
		json_key(j, contain_method_name(m));
		json_open(j, '{');
		json_key(j, "available");
		json_bool(j, ok[m - 1]);
		if (m == CONTAIN_METHOD_LANDLOCK) {
			json_key(j, "abi");
			if ((abi = landlock_abi()) > 0)
				json_int(j, abi);
			else
				json_null(j);
		}
		json_key(j, "why");
		json_str(j, ok[m - 1] ? NULL : why[m - 1]);
		json_close(j, '}');
	}
	json_close(j, '}');
}

static void
json_copy(struct json *j, const struct copy *k, int reusable)
{
	char	t[RFC3339_LEN];

	json_open(j, '{');
	json_key(j, "path");
	json_str(j, k->path);
	json_key(j, "size");
	json_int(j, k->size);
	json_key(j, "last_use");
	json_str(j, timeutil_rfc3339(t, k->last_use));
	if (reusable) {
		json_key(j, "kind");
		json_str(j, k->kind);
		json_key(j, "incremental");
		json_bool(j, k->incremental);
		json_key(j, "in_use");
		json_bool(j, k->in_use);
	}
	json_close(j, '}');
}

static void
json_copies(struct json *j, const char *common)
{
	struct copies	c;
	size_t		i;

	copies_list(&c, common);
	json_key(j, "copies");
	json_open(j, '{');
	json_key(j, "kept");
	json_open(j, '[');
	for (i = 0; i < c.nkept; i++)
		json_copy(j, &c.kept[i], 0);
	json_close(j, ']');
	json_key(j, "reusable");
	json_open(j, '[');
	for (i = 0; i < c.nreusable; i++)
		json_copy(j, &c.reusable[i], 1);
	json_close(j, ']');
	json_close(j, '}');
	copies_free(&c);
}

/* The copies forge keeps, one line each, after a line that counts them. */
static void
print_copies(const char *common)
{
	struct copies	 c;
	struct copy	*k;
	char		 t[RFC3339_LEN], size[8];
	size_t		 n;

	copies_list(&c, common);
	if (c.nkept + c.nreusable == 0) {
		copies_free(&c);
		return;
	}
	printf("\ncopies: %zu kept, %zu reusable\n", c.nkept, c.nreusable);
	for (n = 0; n < c.nkept + c.nreusable; n++) {
		k = n < c.nkept ? &c.kept[n] : &c.reusable[n - c.nkept];
		/* As ls -h: at most four characters, "980K", "1.2G". */
		(void)humanize_number(size, 5, k->size, "", HN_AUTOSCALE,
		    HN_DECIMAL | HN_NOSPACE | HN_B);
		printf("  %-11s %-8s %5s  last used %s  %s\n", n < c.nkept ?
		    "kept" : k->in_use ? "in use" : k->incremental ?
		    "incremental" : "reusable", n < c.nkept ? "" : k->kind,
		    size, timeutil_rfc3339(t, k->last_use), fs_vis(k->path));
	}
	copies_free(&c);
}

static void
print_json(struct context *ctx, const struct breaker *b,
    const struct event *last, const struct divergences *d)
{
	struct buf	out = BUF_INIT;
	struct json	j;

	json_init(&j, &out);
	json_open(&j, '{');
	json_key(&j, "version");
	json_str(&j, PACKAGE_VERSION);
	json_breaker(&j, b, ctx->cfg.threshold);
	json_last(&j, last);
	json_audit(&j, ctx, d);
	json_copies(&j, ctx->repo.common);
	json_containment(&j, ctx->cfg.contain_method);
	json_close(&j, '}');
	printf("%s\n", out.data);
	buf_free(&out);
}

static int
cmd_status(int argc, char **argv)
{
	struct context		 ctx;
	struct breaker		 b;
	struct event		 last;
	struct status_opts	 o = { 0 };
	struct divergences	 d = { 0, NULL };
	int			 n, st;

	switch (n = cmd_parse(&cmd_status_entry, argc, argv, &o)) {
	case CMD_HELP:
		cmd_help(&cmd_status_entry);
		return 0;
	case -1:
		return EXIT_USAGE;
	}
	if (n < argc) {
		cmd_usage(&cmd_status_entry);
		return EXIT_USAGE;
	}
	if ((st = context_open(&ctx, 0)) != 0) {
		context_close(&ctx);
		return st;
	}
	if (context_breaker(&ctx, &b) == -1) {
		context_close(&ctx);
		return EXIT_FORGE;
	}
	memset(&last, 0, sizeof(last));
	(void)state_events_back(&ctx.state, last_verdict, &last);
	d.n = state_events_count(&ctx.state, "divergence", &d.last);
	if (o.json)
		print_json(&ctx, &b, last.v != NULL ? &last : NULL, &d);
	else
		print_text(&ctx, &b, last.v != NULL ? &last : NULL, &d);
	event_free(&last);
	free(d.last);
	breaker_free(&b);
	context_close(&ctx);
	if (fflush(stdout) == EOF || ferror(stdout)) {
		warn("stdout");
		return EXIT_FORGE;
	}
	return 0;
}
