/*
** gpu_query's programs over kept columns on the CPU (backend.h's xQuery):
** the reference the device's tile interpreter (kernels/query.cu) is tested
** against, bit for bit.
**
**   1. Rows are evaluated a piece of PIECE at a time, instruction by
**      instruction over the piece (qprog.h's ga_q_step, the device's own
**      code), into registers laid out register by register.
**   2. Each row then becomes one grouping row per fold (qprog.h, 4), folded
**      into the fold's CPU table (group.c) with its scan position; the
**      window of each fold's real sums is chosen at its first reals, and
**      reals outside it are summed on the host (ga_group_window), so every
**      value is served.
**   3. An order (xOrder): each row's class and key (qprog.h, 5), the
**      numbers' (key, row) pairs sorted (ties by row: scan order), NULLs
**      in scan order before or after them, and the window's rows given.
*/
#include <stdlib.h>
#include <string.h>
#include "backend.h"
#include "qprog.h"

#define PIECE 1024

/* The registers of rows [i0, i0+n) (n <= PIECE) evaluated. */
static void evalPiece(const ga_qprog *p, const ga_qcol *a, int64_t i0, int n, const unsigned char *tabC,
                      const int64_t *tabV, unsigned char *rc, int64_t *rv){
  const unsigned char *colC[GA_QCOL];
  const int64_t *colV[GA_QCOL];
  int i, k, c;
  for(c=0; c<p->nCol; c++){
    colC[c] = a[c].type + i0;
    colV[c] = a[c].v + i0;
  }
  for(k=0; k<p->nIns; k++){
    for(i=0; i<n; i++) ga_q_step(p, &p->ins[k], rc + i, rv + i, PIECE, colC, colV, i, tabC, tabV);
  }
}

int ga_cpu_query(ga_dres **pp, ga_stats *stats, const ga_qprog *p, const ga_qcol *a, int64_t nRow,
                 const unsigned char *tabC, const int64_t *tabV, int64_t nTab, ga_group *const *g, char *zErr){
  unsigned char *rc = calloc(GA_QREG, PIECE), *kmeta = malloc(PIECE), *meta = malloc(PIECE);
  int64_t *rv = calloc(GA_QREG, PIECE*sizeof(int64_t));
  uint64_t *keys = malloc(PIECE*sizeof(uint64_t)), *vals = malloc(PIECE*sizeof(uint64_t));
  int64_t i0;
  int fail = rc==0 || kmeta==0 || meta==0 || rv==0 || keys==0 || vals==0;
  (void)pp; (void)stats; (void)nTab;
  for(i0=0; i0<nRow && !fail; i0+=PIECE){
    int n = nRow - i0<PIECE ? (int)(nRow - i0) : PIECE, i, f;
    evalPiece(p, a, i0, n, tabC, tabV, rc, rv);
    for(i=0; i<n; i++) ga_q_key(p, rc + i, rv + i, PIECE, &keys[i], &kmeta[i]);
    for(f=0; f<p->nFold && !fail; f++){
      for(i=0; i<n; i++){
        unsigned char m;
        ga_q_val(rc + i, rv + i, PIECE, p->foldReg[f], &vals[i], &m);
        meta[i] = kmeta[i]==GA_Q_DROPPED_META ? kmeta[i] : (unsigned char)(kmeta[i] | m);
      }
      fail = ga_group_window(g[f], keys, vals, meta, n) || ga_cpu_group(g[f], keys, vals, meta, n, i0);
    }
  }
  free(rc); free(kmeta); free(meta); free(rv); free(keys); free(vals);
  if( fail ) strcpy(zErr, "gpuagg: out of memory");
  return fail;
}

typedef struct Pair { uint64_t k; int64_t row; } Pair;

static int pairCmp(const void *x, const void *y){
  const Pair *a = (const Pair*)x, *b = (const Pair*)y;
  if( a->k!=b->k ) return a->k<b->k ? -1 : 1;
  return a->row<b->row ? -1 : a->row>b->row;
}

int ga_cpu_order(ga_dres **pp, ga_stats *stats, const ga_qprog *p, const ga_qcol *a, int64_t nRow,
                 const unsigned char *tabC, const int64_t *tabV, int64_t nTab, int desc, int nullsFirst,
                 int64_t off, int64_t n, int64_t *aRow, int64_t *pnRow, char *zErr){
  unsigned char *rc = calloc(GA_QREG, PIECE);
  int64_t *rv = calloc(GA_QREG, PIECE*sizeof(int64_t));
  Pair *num = malloc(sizeof(Pair)*(size_t)(nRow + 1));
  int64_t *nul = malloc(sizeof(int64_t)*(size_t)(nRow + 1)), nNum = 0, nNull = 0, i0, j, m = 0;
  int seen = 0, fail = rc==0 || rv==0 || num==0 || nul==0;
  (void)pp; (void)stats; (void)nTab;
  for(i0=0; i0<nRow && !fail; i0+=PIECE){
    int k = nRow - i0<PIECE ? (int)(nRow - i0) : PIECE, i;
    evalPiece(p, a, i0, k, tabC, tabV, rc, rv);
    for(i=0; i<k; i++){
      uint64_t key = 0;
      int c = ga_q_order_key(p, rc + i, rv + i, PIECE, desc, &key);
      seen |= 1<<c;
      if( c==GA_QO_NULL ) nul[nNull++] = i0 + i;
      else if( c!=GA_QO_DROPPED ){ num[nNum].k = key; num[nNum++].row = i0 + i; }
    }
  }
  if( !fail && (seen & (1<<GA_QO_INT)) && (seen & (1<<GA_QO_REAL)) ) fail = GA_DEV_SCAN;
  if( !fail ){
    qsort(num, (size_t)nNum, sizeof(Pair), pairCmp);
    for(j=off; j<nNum + nNull && m<n; j++){
      int64_t at = nullsFirst ? j - nNull : j;          /* the place among the numbers, if one */
      aRow[m++] = at>=0 && at<nNum ? num[at].row : nul[nullsFirst ? j : j - nNum];
    }
    *pnRow = m;
  }
  free(rc); free(rv); free(num); free(nul);
  if( fail==1 ) strcpy(zErr, "gpuagg: out of memory");
  return fail;
}
