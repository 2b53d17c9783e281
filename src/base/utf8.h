#ifndef REVLINE_UTF8_H
#define REVLINE_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "buf.h"

/*
 * Decode the UTF-8 sequence at s: its length (1 to 4) with the code point
 * in *cp, or 0 when the bytes there are not valid UTF-8 (overlong forms,
 * surrogates and truncated sequences included).
 */
size_t utf8_decode(uint32_t *cp, const char *s, size_t len);
bool utf8_valid(const char *s, size_t len);
/* Append s to out with every invalid byte replaced by U+FFFD. */
int utf8_sanitize(struct buf *out, const char *s, size_t len);
/*
 * Append s to out as text that cannot drive a terminal: C0 control
 * characters but newline and tab as ^X (ESC as ^[, CR as ^M), DEL as ^?,
 * C1 controls and the bidirectional overrides and isolates (U+202A-202E,
 * U+2066-2069) as <U+XXXX>, invalid UTF-8 as U+FFFD. The one function
 * every text output of revline passes outside strings through.
 */
int utf8_visible(struct buf *out, const char *s, size_t len);
/*
 * A JSON string of bytes that may not be UTF-8, which JSON needs: invalid
 * bytes become U+FFFD. utf8_json gives null for NULL.
 */
json_t *utf8_json(const char *s);
json_t *utf8_jsonn(const char *s, size_t len);
/* Append the base64 form of the bytes to out. */
int base64_encode(struct buf *out, const unsigned char *s, size_t len);

/*
 * Edit distance between a (alen bytes, as typed) and b, ignoring a's case
 * and '-' against '_', to guess a typo ("did you mean"); SIZE_MAX for words
 * over 23 bytes.
 */
size_t text_distance(const char *a, size_t alen, const char *b);

#endif
