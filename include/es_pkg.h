/*
 * es_pkg.h - what an npm package.json says about the packages that are
 * part of an agent's install (docs/design.md, "Agent vs its tools").
 * Pure: the caller reads the file.
 */
#ifndef ES_PKG_H
#define ES_PKG_H

#include <stddef.h>

/*
 * The names under the top-level "optionalDependencies" object of the
 * package.json text json[len] - where npm puts an agent's platform
 * packages with its native binary (@openai/codex-linux-x64) - into out,
 * each NUL-terminated, one after another.  Only names npm could install
 * are taken ("name" or "@scope/name" of [a-z0-9._~-], not starting with
 * '.'), at most max of them.  Returns how many, or -1 when the text is
 * not a JSON object or nests deeper than ES_PKG_DEPTH.
 */
int	es_pkg_optional(const char *json, size_t len, char *out, size_t cap,
	    int max);

#endif
