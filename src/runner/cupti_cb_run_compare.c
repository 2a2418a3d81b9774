/* cupti_cb_run_compare.c: --compare BASELINE.json and --fail-above SPEC.
 *
 *   SPEC ::= RULE { "," RULE }
 *   RULE ::= KIND ":" NAME "=" PCT [ "%" ]        PCT: a number >= 0
 *
 *   calls:F   time:F   errors:F   calls, host time (ns) or errors of the
 *                                 CUDA function F; F may be "total" (every
 *                                 function) or "*" (each function apart)
 *   bytes:D                       bytes copied in direction D (htod, dtoh,
 *                                 dtod, htoh, peer), or total (all copies),
 *                                 memset, alloc, free
 *   kernels:K                     launches, threads, graphs (graph launches),
 *                                 gpu (kernels the GPU ran), gpu_time (ns)
 *   event:E                       any cupti_cb event of the devices, summed
 *                                 over devices (event:sync.time_ns)
 *   metric:M                      a hardware metric, summed over devices
 *
 * A quantity regressed when it grew by more than PCT percent of the
 * baseline; one that was 0 regressed when it is no longer 0, whatever PCT
 * is. Only growth fails: fewer calls or less time is never a regression.
 * A host time that either run did not measure (--no-time: "host_time"
 * false) is "not measured", neither ok nor regressed: an absent time is not
 * a time of 0.
 *
 * A rule whose function, event or metric neither report has compares
 * nothing (0 against 0, "ok" for ever): a misspelt name in a CI gate. It is
 * refused after the run, before any comparison (cupti_cb_run_rules_unmatched). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_cb_run.h"

const char cupti_cb_run_default_rules[] = "calls:total=0%,errors:total=0%,kernels:launches=0%,bytes:total=0%";

static const char *const kinds[] = { "calls", "time", "errors", "bytes", "kernels", "event", "metric", NULL };
static const char *const byte_names[] = { "htod", "dtoh", "dtod", "htoh", "peer", "total", "memset", "alloc",
					  "free", NULL };
static const char *const kernel_names[] = { "launches", "threads", "graphs", "gpu", "gpu_time", NULL };

static int in(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (!strcmp(*list, s))
			return 1;
	return 0;
}

static int name_chars(const char *s, const char *extra)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && !strchr(extra, *s))
			return 0;
	return 1;
}

/* One RULE into r; NULL or why it is wrong. */
static const char *parse_rule(const char *text, struct cupti_cb_run_rule *r)
{
	const char *colon = strchr(text, ':'), *eq = strchr(text, '=');
	if (!colon || !eq || eq < colon)
		return "a rule is KIND:NAME=PCT%";
	size_t kl = (size_t)(colon - text), nl = (size_t)(eq - colon - 1);
	if (kl >= sizeof r->kind || nl >= sizeof r->name)
		return "the kind or the name is too long";
	memcpy(r->kind, text, kl);
	r->kind[kl] = 0;
	memcpy(r->name, colon + 1, nl);
	r->name[nl] = 0;
	if (!in(kinds, r->kind))
		return "the kind must be one of calls, time, errors, bytes, kernels, event, metric";
	char *end;
	r->pct = strtod(eq + 1, &end);
	if (end == eq + 1 || !isdigit((unsigned char)eq[1]) || (*end && strcmp(end, "%")))
		return "the threshold must be a number of percent, such as 10% or 0.5%";
	if (!strcmp(r->kind, "bytes") && !in(byte_names, r->name))
		return "bytes takes htod, dtoh, dtod, htoh, peer, total, memset, alloc or free";
	if (!strcmp(r->kind, "kernels") && !in(kernel_names, r->name))
		return "kernels takes launches, threads, graphs, gpu or gpu_time";
	int is_api = !strcmp(r->kind, "calls") || !strcmp(r->kind, "time") || !strcmp(r->kind, "errors");
	if (is_api && strcmp(r->name, "*") && !name_chars(r->name, ""))
		return "the name must be a CUDA function, total or *";
	if (!is_api && !name_chars(r->name, "."))
		return "the name is empty or has a character no event name has";
	return NULL;
}

int cupti_cb_run_parse_rules(const char *spec, struct cupti_cb_run_rule **rules, size_t *n, char *why, size_t whyn)
{
	char *copy = strdup(spec), *save = NULL;
	size_t cap = 1;
	for (const char *p = spec; *p; p++)
		cap += *p == ',';
	*rules = calloc(cap, sizeof **rules);
	*n = 0;
	if (!copy || !*rules)
		abort();
	if (!*spec) {
		snprintf(why, whyn, "--fail-above: the list is empty; the form is KIND:NAME=PCT%%[,...]");
		goto bad;
	}
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		const char *e = parse_rule(t, &(*rules)[*n]);
		if (e) {
			snprintf(why, whyn, "--fail-above: '%s': %s (example: calls:cudaMemcpy=0%%,time:total=10%%)", t, e);
			goto bad;
		}
		(*n)++;
	}
	free(copy);
	return 0;
bad:
	free(copy);
	free(*rules);
	*rules = NULL;
	return -1;
}

/* ---- the quantities */

static long long api_field(json_t *report, const char *function, const char *field)
{
	size_t i;
	json_t *f;
	long long sum = 0;
	json_array_foreach(json_object_get(report, "api"), i, f)
		if (!function || !strcmp(json_string_value(json_object_get(f, "function")) ?: "", function))
			sum = cupti_cb_run_add(sum, cupti_cb_run_int(f, field));
	return sum;
}

/* Over devices as over processes (cupti_cb_run_metric_how): a .sum adds
 * up, .max and .min stay the extreme, any other is the mean of the devices. */
static double metric_value(json_t *report, const char *name)
{
	size_t i, n = 0;
	json_t *m;
	double acc = 0;
	enum cupti_cb_run_how how = cupti_cb_run_metric_how(name);
	json_array_foreach(json_object_get(report, "metrics"), i, m) {
		const char *mn = json_string_value(json_object_get(m, "name"));
		if (!mn || strcmp(mn, name))
			continue;
		json_t *v = json_object_get(m, "value");
		double x = json_is_integer(v) ? (double)json_integer_value(v) : json_real_value(v);
		if (how == CUPTI_CB_RUN_MAX)
			acc = !n || x > acc ? x : acc;
		else if (how == CUPTI_CB_RUN_MIN)
			acc = !n || x < acc ? x : acc;
		else
			acc += x;
		n++;
	}
	return how == CUPTI_CB_RUN_MEAN && n ? acc / (double)n : acc;
}

static const char *event_of(const char *kind, const char *name)
{
	static const char *const map[][3] = {
		{ "bytes", "htod", "memcpy.bytes_htod" }, { "bytes", "dtoh", "memcpy.bytes_dtoh" },
		{ "bytes", "dtod", "memcpy.bytes_dtod" }, { "bytes", "htoh", "memcpy.bytes_htoh" },
		{ "bytes", "peer", "memcpy.bytes_peer" }, { "bytes", "memset", "memset.bytes" },
		{ "bytes", "alloc", "alloc.bytes" }, { "bytes", "free", "free.bytes" },
		{ "kernels", "launches", "kernel.launches" }, { "kernels", "threads", "kernel.threads" },
		{ "kernels", "graphs", "graph.launches" }, { "kernels", "gpu", "gpu.kernels" },
		{ "kernels", "gpu_time", "gpu.kernel_time_ns" },
	};
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (!strcmp(map[i][0], kind) && !strcmp(map[i][1], name))
			return map[i][2];
	return name;
}

static double quantity(json_t *report, const char *kind, const char *name)
{
	static const char *const dirs[] = { "memcpy.bytes_htod", "memcpy.bytes_dtoh", "memcpy.bytes_dtod",
					    "memcpy.bytes_htoh", "memcpy.bytes_peer", NULL };
	const char *field = !strcmp(kind, "time") ? "time_ns" : kind;
	if (!strcmp(kind, "calls") || !strcmp(kind, "time") || !strcmp(kind, "errors"))
		return (double)api_field(report, strcmp(name, "total") ? name : NULL, field);
	if (!strcmp(kind, "metric"))
		return metric_value(report, name);
	if (!strcmp(kind, "bytes") && !strcmp(name, "total")) {
		long long sum = 0;
		for (int i = 0; dirs[i]; i++)
			sum = cupti_cb_run_add(sum, cupti_cb_run_event_sum(report, dirs[i], NULL));
		return (double)sum;
	}
	return (double)cupti_cb_run_event_sum(report, event_of(kind, name), NULL);
}

int cupti_cb_run_rule_host_time(const char *kind, const char *name)
{
	return !strcmp(kind, "time") || (!strcmp(kind, "event") && cupti_cb_run_is_host_time(name));
}

/* ---- rules that match nothing */

static int has_function(json_t *report, const char *name)
{
	size_t i;
	json_t *f;
	json_array_foreach(json_object_get(report, "api"), i, f)
		if (!strcmp(name, "*") || !strcmp(json_string_value(json_object_get(f, "function")) ?: "", name))
			return 1;
	return 0;
}

static int has_metric(json_t *report, const char *name)
{
	size_t i;
	json_t *m;
	json_array_foreach(json_object_get(report, "metrics"), i, m)
		if (!strcmp(json_string_value(json_object_get(m, "name")) ?: "", name))
			return 1;
	return 0;
}

/* What the rule names, as a phrase, when report lacks it; NULL when it has
 * it. bytes: and kernels: take fixed names, checked when parsed, whose
 * value is a count even when no device counted it. */
static const char *missing(json_t *report, const struct cupti_cb_run_rule *r)
{
	int present;
	if (in((const char *const[]){ "calls", "time", "errors", NULL }, r->kind) && strcmp(r->name, "total"))
		return has_function(report, r->name) ? NULL : !strcmp(r->name, "*") ? "any CUDA function" : "the CUDA function";
	if (!strcmp(r->kind, "metric"))
		return has_metric(report, r->name) ? NULL : "the hardware metric";
	if (!strcmp(r->kind, "event")) {
		cupti_cb_run_event_sum(report, r->name, &present);
		return present ? NULL : "the device event";
	}
	return NULL;
}

int cupti_cb_run_rules_unmatched(FILE *err, const char *base_name, json_t *base, json_t *now,
				 const struct cupti_cb_run_rule *rules, size_t n)
{
	int bad = 0;
	for (size_t i = 0; i < n; i++) {
		const char *what = missing(base, &rules[i]);
		if (!what || !missing(now, &rules[i]))
			continue;
		fprintf(err, "cupti_cb_run: --fail-above '%s:%s': neither %s nor this report has %s%s%s, so the rule "
			"compares nothing (is the name misspelt?)\n", rules[i].kind, rules[i].name, base_name, what,
			strcmp(rules[i].name, "*") ? " " : "", strcmp(rules[i].name, "*") ? rules[i].name : "");
		bad++;
	}
	return bad;
}

/* ---- the comparison */

struct cmp {
	struct cupti_cb_run_tab *t;
	int regressed, compared, unmeasured;
};

static void num(char *buf, double v)
{
	/* Beyond 2^63 a double does not convert to long long (undefined). */
	if (v >= -9.2e18 && v <= 9.2e18 && v == (double)(long long)v)
		snprintf(buf, 32, "%lld", (long long)v);
	else
		snprintf(buf, 32, "%.15g", v);
}

/* A host time that one of the runs did not measure: its row, with "-" for that run. */
static void not_measured(struct cmp *c, const char *label, const char *kind, const char *name, double pct,
			 json_t *base, json_t *now)
{
	char b[32] = "-", n[32] = "-", th[32];
	if (cupti_cb_run_host_time(base))
		num(b, quantity(base, kind, name));
	if (cupti_cb_run_host_time(now))
		num(n, quantity(now, kind, name));
	snprintf(th, sizeof th, "%g", pct);
	const char *cells[] = { label, b, n, "-", th, "not measured (--no-time)" };
	cupti_cb_run_tab_row(c->t, cells);
	c->unmeasured++;
}

static void compare_one(struct cmp *c, const char *kind, const char *name, double pct, json_t *base, json_t *now)
{
	char label[160], b[32], n[32], ch[32], th[32];
	snprintf(label, sizeof label, "%s:%s", kind, name);
	if (cupti_cb_run_rule_host_time(kind, name) && (!cupti_cb_run_host_time(base) || !cupti_cb_run_host_time(now))) {
		not_measured(c, label, kind, name, pct, base, now);
		return;
	}
	double vb = quantity(base, kind, name), vn = quantity(now, kind, name);
	int bad = vn > vb && (vb == 0 || (vn - vb) * 100.0 / vb > pct);
	num(b, vb);
	num(n, vn);
	if (vn == vb)
		snprintf(ch, sizeof ch, "0.0");
	else if (vb == 0)
		snprintf(ch, sizeof ch, "+inf");
	else
		snprintf(ch, sizeof ch, "%+.1f", (vn - vb) * 100.0 / vb);
	snprintf(th, sizeof th, "%g", pct);
	const char *cells[] = { label, b, n, ch, th, bad ? "REGRESSED" : "ok" };
	cupti_cb_run_tab_row(c->t, cells);
	c->regressed += bad;
	c->compared++;
}

/* "*": each function that either run called. */
static void compare_each(struct cmp *c, const struct cupti_cb_run_rule *r, json_t *base, json_t *now)
{
	json_t *names = json_object(), *f, *v;
	json_t *runs[] = { base, now };
	size_t i;
	const char *key;
	for (int k = 0; k < 2; k++)
		json_array_foreach(json_object_get(runs[k], "api"), i, f)
			if (json_is_string(json_object_get(f, "function")))
				json_object_set_new(names, json_string_value(json_object_get(f, "function")), json_true());
	json_object_foreach(names, key, v)
		compare_one(c, r->kind, key, r->pct, base, now);
	json_decref(names);
}

int cupti_cb_run_compare(FILE *f, const char *base_name, json_t *base, json_t *now,
			 const struct cupti_cb_run_rule *rules, size_t n)
{
	static const char *const h[] = { "Quantity", "Baseline", "Now", "Change (%)", "Threshold (%)", "Result" };
	struct cmp c = { cupti_cb_run_tab_new(6, h, "lrrrrl"), 0, 0, 0 };
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(rules[i].name, "*"))
			compare_each(&c, &rules[i], base, now);
		else
			compare_one(&c, rules[i].kind, rules[i].name, rules[i].pct, base, now);
	}
	fprintf(f, "\nComparison with %s: %d quantit%s, %d regressed\n\n", base_name, c.compared,
		c.compared == 1 ? "y" : "ies", c.regressed);
	cupti_cb_run_tab_print(f, c.t);
	if (c.unmeasured)
		fprintf(f, " %d host time%s not compared: %s measured no host time (--no-time).\n", c.unmeasured,
			c.unmeasured == 1 ? " was" : "s were",
			!cupti_cb_run_host_time(base) && !cupti_cb_run_host_time(now) ? "neither run"
			: !cupti_cb_run_host_time(base) ? "the baseline" : "this run");
	cupti_cb_run_tab_free(c.t);
	return c.regressed;
}
