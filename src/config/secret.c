/* The process's secrets, and their removal from text at every boundary. */
#include "secret.h"
#include "array.h"
#include "child.h"
#include "status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* As it is, JSON-escaped, JSON-escaped with "\/", URL-encoded. */
#define FORMS 4
#define MARKER_LEN (sizeof(SECRET_MARKER) - 1)

struct form {
	char *text;
	size_t len;
};

struct secret {
	struct form forms[FORMS];
	size_t nforms;
	bool word;      /* short: hidden only where it stands as a word */
};

/*
 * Process-wide on purpose: the key is read once, where the settings are
 * loaded, and must be known at every boundary, which has no settings at
 * hand. revline is single-threaded; secrets are added before any request.
 */
static struct secret *secrets;
static size_t nsecrets;
static size_t secrets_alloc;

/* ASCII only: the locale must not decide what a word is. */
static bool word_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		c == '-' || c == '_';
}

static char *json_form(const char *s, bool slash)
{
	size_t n = strlen(s);
	char *out = malloc(n * 6 + 1), *p = out;

	if (!out)
		return NULL;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\' || (c == '/' && slash)) {
			*p++ = '\\';
			*p++ = (char)c;
		} else if (c < 0x20) {
			p += sprintf(p, "\\u%04x", c);
		} else {
			*p++ = (char)c;
		}
	}
	*p = '\0';
	return out;
}

static char *url_form(const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	char *out = malloc(strlen(s) * 3 + 1), *p = out;

	if (!out)
		return NULL;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (word_char(c) || c == '.' || c == '~') {
			*p++ = (char)c;
		} else {
			*p++ = '%';
			*p++ = hex[c >> 4];
			*p++ = hex[c & 15];
		}
	}
	*p = '\0';
	return out;
}

/* Takes text (NULL: memory ran out); a form equal to one already kept is dropped. */
static int form_add(struct secret *secret, char *text)
{
	size_t i;

	if (!text)
		return RL_ENOMEM;
	for (i = 0; i < secret->nforms; i++)
		if (!strcmp(secret->forms[i].text, text)) {
			free(text);
			return 0;
		}
	secret->forms[secret->nforms].text = text;
	secret->forms[secret->nforms++].len = strlen(text);
	return 0;
}

static void secret_release(struct secret *secret)
{
	size_t i;

	for (i = 0; i < secret->nforms; i++) {
		memset(secret->forms[i].text, 0, secret->forms[i].len);
		free(secret->forms[i].text);
	}
	memset(secret, 0, sizeof(*secret));
}

int secret_add(const char *text)
{
	struct secret *secret;
	size_t i;
	int error;

	if (!text || !*text)
		return 0;
	for (i = 0; i < nsecrets; i++)
		if (!strcmp(secrets[i].forms[0].text, text))
			return 0;
	if ((error = ARRAY_GROW(secrets, secrets_alloc, nsecrets + 1)) < 0)
		return error;
	secret = &secrets[nsecrets];
	memset(secret, 0, sizeof(*secret));
	secret->word = strlen(text) < SECRET_SHORT;
	if (form_add(secret, strdup(text)) < 0 || form_add(secret, json_form(text, false)) < 0 ||
	    form_add(secret, json_form(text, true)) < 0 || form_add(secret, url_form(text)) < 0) {
		secret_release(secret);
		return error_nomem();
	}
	nsecrets++;
	error_scrub_set(secret_copy);
	child_secret_set(secret_in);    /* no child process gets it in its environment */
	return 0;
}

void secret_clear(void)
{
	size_t i;

	for (i = 0; i < nsecrets; i++)
		secret_release(&secrets[i]);
	free(secrets);
	secrets = NULL;
	nsecrets = 0;
	secrets_alloc = 0;
}

/* The length of the longest secret form that starts at s[i], or 0. */
static size_t match_at(const char *s, size_t len, size_t i)
{
	size_t k, f, best = 0;

	for (k = 0; k < nsecrets; k++) {
		const struct secret *secret = &secrets[k];

		for (f = 0; f < secret->nforms; f++) {
			const struct form *form = &secret->forms[f];

			if (form->len <= best || form->len > len - i || s[i] != form->text[0] ||
			    memcmp(s + i, form->text, form->len))
				continue;
			if (secret->word && ((i > 0 && word_char((unsigned char)s[i - 1])) ||
					     (i + form->len < len &&
					      word_char((unsigned char)s[i + form->len]))))
				continue;
			best = form->len;
		}
	}
	return best;
}

bool secret_in(const char *s, size_t len)
{
	size_t i;

	for (i = 0; nsecrets && s && i < len; i++)
		if (match_at(s, len, i))
			return true;
	return false;
}

/* The length of s once redacted. */
static size_t redacted_len(const char *s, size_t len)
{
	size_t i = 0, n = 0, m;

	while (i < len) {
		if ((m = match_at(s, len, i))) {
			n += MARKER_LEN;
			i += m;
		} else {
			n++;
			i++;
		}
	}
	return n;
}

size_t secret_copy(char *out, size_t size, const char *s, size_t len)
{
	size_t i = 0, n = 0, m, k;

	if (!size)
		return 0;
	while (i < len && n + 1 < size) {
		if (nsecrets && (m = match_at(s, len, i))) {
			k = MARKER_LEN < size - 1 - n ? MARKER_LEN : size - 1 - n;
			memcpy(out + n, SECRET_MARKER, k);
			n += k;
			i += m;
		} else {
			out[n++] = s[i++];
		}
	}
	out[n] = '\0';
	return n;
}

void secret_redact(struct buf *text)
{
	size_t need, i, m;
	char *out;

	if (!nsecrets || !text->ptr || !secret_in(text->ptr, text->len))
		return;
	need = redacted_len(text->ptr, text->len);
	if (!(out = malloc(need + 1))) {
		for (i = 0; i < text->len; i += m ? m : 1)
			if ((m = match_at(text->ptr, text->len, i)))
				memset(text->ptr + i, '*', m);
		return;
	}
	secret_copy(out, need + 1, text->ptr, text->len);
	memset(text->ptr, 0, text->len);
	free(text->ptr);
	text->ptr = out;
	text->len = need;
	text->cap = need + 1;
}

const char *secret_scrub(struct buf *tmp, const char *s)
{
	size_t len = s ? strlen(s) : 0, need;

	if (!s || !secret_in(s, len))
		return s;
	need = redacted_len(s, len);
	buf_release(tmp);
	if (!(tmp->ptr = malloc(need + 1)))
		return SECRET_MARKER;
	tmp->len = secret_copy(tmp->ptr, need + 1, s, len);
	tmp->cap = need + 1;
	return tmp->ptr;
}
