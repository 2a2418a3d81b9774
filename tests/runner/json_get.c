/* json_get: prints one value of a JSON file, for the tests' exact checks.
 *
 *   json_get FILE PATH
 *
 * PATH is a list of /-separated steps from the top: an object key
 * ("totals", "api.calls"), an array index ("0"), or KEY[FIELD=VALUE], the
 * element of the array KEY whose FIELD is the string or integer VALUE. A
 * step "#" prints the size of the array or object reached. Strings print
 * bare, integers in full, reals with %.17g, anything else as compact JSON.
 * Exit status 1 when the path leads nowhere. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static json_t *select_elem(json_t *array, const char *field, const char *want)
{
	size_t i;
	json_t *e;
	json_array_foreach(array, i, e) {
		json_t *v = json_object_get(e, field);
		char num[32];
		if (json_is_integer(v)) {
			snprintf(num, sizeof num, "%lld", (long long)json_integer_value(v));
			if (!strcmp(num, want))
				return e;
		} else if (json_is_string(v) && !strcmp(json_string_value(v), want))
			return e;
	}
	return NULL;
}

static json_t *step(json_t *at, char *s)
{
	char *br = strchr(s, '[');
	if (br) {
		char *eq = strchr(br, '='), *end = strrchr(br, ']');
		if (!eq || !end)
			return NULL;
		*br = *eq = *end = 0;
		return select_elem(json_object_get(at, s), br + 1, eq + 1);
	}
	if (json_is_array(at)) {
		char *end;
		long i = strtol(s, &end, 10);
		return *end ? NULL : json_array_get(at, (size_t)i);
	}
	return json_object_get(at, s);
}

int main(int argc, char **argv)
{
	json_error_t err;
	if (argc != 3) {
		fprintf(stderr, "usage: json_get FILE PATH\n");
		return 2;
	}
	json_t *doc = json_load_file(argv[1], 0, &err), *at = doc;
	if (!doc) {
		fprintf(stderr, "json_get: %s: %s (line %d)\n", argv[1], err.text, err.line);
		return 1;
	}
	char *path = strdup(argv[2]), *save = NULL;
	for (char *s = strtok_r(path, "/", &save); s && at; s = strtok_r(NULL, "/", &save)) {
		if (!strcmp(s, "#")) {
			printf("%zu\n", json_is_array(at) ? json_array_size(at) : json_object_size(at));
			return 0;
		}
		at = step(at, s);
	}
	if (!at) {
		fprintf(stderr, "json_get: %s: nothing at %s\n", argv[1], argv[2]);
		return 1;
	}
	if (json_is_string(at))
		printf("%s\n", json_string_value(at));
	else if (json_is_integer(at))
		printf("%lld\n", (long long)json_integer_value(at));
	else if (json_is_real(at))
		printf("%.17g\n", json_real_value(at));
	else {
		char *s = json_dumps(at, JSON_COMPACT | JSON_ENCODE_ANY);
		printf("%s\n", s);
		free(s);
	}
	free(path);
	json_decref(doc);
	return 0;
}
