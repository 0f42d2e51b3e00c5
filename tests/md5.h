/*
** MD5 (RFC 1321), for the sqllogictest runner: the corpus gives a long
** answer as the MD5 of its values. Not for security.
*/
#ifndef GPUAGG_MD5_H
#define GPUAGG_MD5_H

#include <stddef.h>
#include <stdint.h>

typedef struct md5_ctx {
  uint32_t h[4];                   /* the state: A, B, C, D */
  uint64_t nByte;                  /* bytes added */
  unsigned char buf[64];           /* a block being filled */
} md5_ctx;

void md5_init(md5_ctx*);
void md5_add(md5_ctx*, const void *p, size_t n);
/* The digest as 32 lowercase hex digits and a NUL into z (33 bytes). */
void md5_hex(md5_ctx*, char *z);

#endif
