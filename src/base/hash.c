/* The one hash of revline's own texts: git's blob id, in pieces, by libcrypto. */
#include "hash.h"
#include "status.h"

#include <openssl/evp.h>
#include <stdio.h>

int hash_blob(char out[HASH_HEX_SIZE], const struct hash_part *parts, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int len = 0, i;
	char header[32];
	size_t total = 0, k;
	int ok, hlen;

	for (k = 0; k < n; k++)
		total += parts[k].ptr ? parts[k].len : 0;
	/* git's object header: the type, a space, the size in decimal and a NUL, hashed before the bytes. */
	hlen = snprintf(header, sizeof(header), "blob %zu", total) + 1;
	ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha1(), NULL) && EVP_DigestUpdate(ctx, header, (size_t)hlen);
	for (k = 0; k < n && ok; k++)
		if (parts[k].ptr && parts[k].len)
			ok = EVP_DigestUpdate(ctx, parts[k].ptr, parts[k].len);
	ok = ok && EVP_DigestFinal_ex(ctx, md, &len) && len == 20;
	EVP_MD_CTX_free(ctx);
	if (!ok)
		return error_set(RL_ERROR, "libcrypto could not compute a SHA-1");
	for (i = 0; i < len; i++) {
		out[2 * i] = hex[md[i] >> 4];
		out[2 * i + 1] = hex[md[i] & 15];
	}
	out[2 * len] = '\0';
	return 0;
}
