/*
** gpu_query's programs over kept columns: the bytecode the engine's
** compiler (ext/query/compile.c) makes of a plan's filter, keys and
** aggregate arguments, and what one instruction does to one row, shared by
** the CPU backend (gcc: the reference) and the tile interpreter
** (kernels/query.cu: nvcc, built with -fmad=false so that no multiply and
** add is fused), so that both give the same bits.
**
**   1. A register holds one row's value: a storage class (SQLite's: 1
**      INTEGER, 2 REAL, 5 NULL; never TEXT or BLOB) and 8 bytes (an int64,
**      a REAL's bits). Instructions read registers written before them, all
**      their operands before they write (ga_q_finish lets an instruction's
**      result take an operand's register).
**   2. GA_Q_COL loads a kept column whose rows are numbers or NULL.
**      GA_Q_MAP reads a kept column whose rows are TEXT, BLOB or NULL
**      through a table the host computed once per distinct value (the
**      column's dictionary, then one entry for NULL): whatever an
**      expression of that one column gives (a comparison with a constant,
**      a LIKE, a substr() key's group id) is a lookup.
**   2a. GA_Q_LOOK looks a register's value up in a table: an INTEGER v
**      reads entry v - tabLo of it where there is one; NULL, a REAL and an
**      integer outside the table read NULL. A join over kept columns
**      (compile.c, 6) probes a joined table's direct index with the scanned
**      row's key (the entry: the joined row, or NULL where there is none),
**      then reads what the query computes of that row from tables made once
**      per joined row (tabLo 0).
**   2b. GA_Q_HASH does the same through an open-addressing table, for a
**      joined table whose keys span too much for a direct index: tabN/2
**      slots (a power of two), slot h's key at entry 2h (NULL: empty) and
**      its entry at 2h + 1; an INTEGER v starts at slot ga_q_hash(v, tabLo)
**      (tabLo: the shift) and steps to the next slot until its key or an
**      empty slot (a miss: NULL). At most half the slots are full, so every
**      search ends.
**   3. Arithmetic, comparison and logic are SQLite's (vdbe.c's OP_Add ...
**      OP_Remainder, OP_Eq ... with numbers, three-valued AND, OR, NOT): an
**      integer result that overflows is computed in doubles, a division by
**      zero is NULL, a NaN is NULL. CAST of a number to INTEGER is
**      sqlite3VdbeIntValue's (doubleToInt64), to REAL its double; min and
**      max of two are minmaxFunc's (NULL if either is; of equal values min
**      takes the second, max the first: min(a, b, c) is min(min(a, b), c)).
**      GA_Q_IF is a CASE's step: a where register x is true, else b (a
**      CASE's WHENs nest, the last innermost; every branch is computed,
**      none raises an error).
**   4. The outputs: a filter register (true: the row counts), the keys
**      (dictionary ids combined into one code, or one number grouped as
**      group_acc.h (2) says) and one value register per fold (a ga_group
**      of rows, group_acc.h): a row is (key, value, meta) for each fold.
**      A row the filter drops goes to the group GA_Q_DROPPED, which no row
**      that counts can reach (its key class is BLOB); the host drops it.
**   5. Or an order (ORDER BY one term, ga_q_order_key): the one key
**      register's value as a 64-bit key in ORDER BY's order (ext/query/
**      order.c's rule: an integer's sign bit flipped; a double's bits, its
**      sign bit flipped or every bit where it is negative, -0.0 as 0.0;
**      DESC flips every bit), so that the rows' order is (key, position);
**      NULLs apart, INTEGERs and REALs never mixed (the caller declines).
*/
#ifndef GPUAGG_QPROG_H
#define GPUAGG_QPROG_H

#include <stdint.h>
#include "hd.h"
#include "ext_acc.h"
#include "group_acc.h"

#define GA_QINS   160               /* instructions of a program, at most */
#define GA_QREG   48                /* registers */
#define GA_QVREG  250               /* registers a program names before ga_q_finish */
#define GA_QLIT   64                /* literals */
#define GA_QTAB   64                /* lookup tables */
#define GA_QFOLD  64                /* folds (distinct aggregate arguments, or one for rows) */
#define GA_QKEY   8                 /* keys */
#define GA_QCOL   64                /* columns read */
#define GA_QONE   4                 /* folds a program without keys folds where it runs (query.cu) */
#define GA_QSTAGE 2                 /* stages: the filter's first conjunct, the whole filter */

#define GA_QC_INT  1                /* register classes: SQLite's */
#define GA_QC_REAL 2
#define GA_QC_NULL 5

enum {
  GA_Q_COL, GA_Q_LIT, GA_Q_MAP,
  GA_Q_ADD, GA_Q_SUB, GA_Q_MUL, GA_Q_DIV, GA_Q_REM,
  GA_Q_EQ, GA_Q_NE, GA_Q_LT, GA_Q_LE, GA_Q_GT, GA_Q_GE, GA_Q_IS, GA_Q_ISNOT,
  GA_Q_AND, GA_Q_OR, GA_Q_NOT, GA_Q_ISNULL, GA_Q_NOTNULL,
  GA_Q_CASTINT, GA_Q_CASTREAL,      /* CAST(a AS INTEGER), CAST(a AS REAL) of a number */
  GA_Q_MIN, GA_Q_MAX,               /* min(a, b), max(a, b) of numbers (func.c's minmaxFunc) */
  GA_Q_LOOK,                        /* table x's entry at a - tabLo[x] (point 2a) */
  GA_Q_IF,                          /* register x true ? a : b (point 3) */
  GA_Q_HASH                         /* table x's entry for the key a (point 2b) */
};

/* An operand (a, b) names a register, or, once ga_q_finish has folded the
** instruction that loaded it into its readers, a literal (GA_QO_LIT + k) or
** a kept column's row (GA_QO_COL + c). */
#define GA_QO_LIT 64
#define GA_QO_COL 128

/* What compile.c knows of a register's classes (a mask), and the hint it
** leaves in a logic, comparison or arithmetic instruction's x where both
** operands have one class and are never NULL: the tile interpreter then
** skips the classes (query.cu, 1), with the same result. */
#define GA_QM_INT  1
#define GA_QM_REAL 2
#define GA_QM_NULL 4
#define GA_QT_II   1                /* both INTEGER */
#define GA_QT_RR   2                /* both REAL */

/* One instruction: dst = op(a, b); x is the column, literal or table
** (GA_Q_IF's condition register; a hint, GA_QT_*, for the others). GA_Q_MAP's b is 1 where its column a
** holds no NULL; GA_Q_LOOK's and GA_Q_HASH's where its operand is always an INTEGER. */
typedef struct ga_qins {
  unsigned char op, dst, a, b;
  int32_t x;
} ga_qins;

typedef struct ga_qprog {
  int nIns;                         /* instructions */
  ga_qins ins[GA_QINS];
  int nReg;                         /* registers used */
  int nCol;                         /* kept columns read (in the caller's column array) */
  int nLit;                         /* literals: class and value */
  unsigned char litT[GA_QLIT];
  int64_t litV[GA_QLIT];
  int nTab;                         /* tables: each one's first entry in the tables' array, and
                                    ** its entries (the column's dictionary, then NULL's) */
  int64_t tabOff[GA_QTAB], tabN[GA_QTAB];
  int64_t tabLo[GA_QTAB];           /* ... GA_Q_LOOK: the value that reads its first entry;
                                    ** GA_Q_HASH: the hash's shift (2b) */
  int filter;                       /* the filter's register; -1: every row counts */
  int nStage;                       /* stages: after instruction stageEnd[k], a row whose
                                    ** register stageReg[k] is not true is dropped (the
                                    ** filter's first conjunct, then the whole filter: the
                                    ** rest need not run for it; query.cu, 2) */
  int stageEnd[GA_QSTAGE];
  unsigned char stageReg[GA_QSTAGE];
  int nKey;                         /* keys (0: one group) */
  int keyNum;                       /* 1: one key, a number, grouped as group_acc.h (2) says;
                                    ** 0: every key a dictionary id, combined by keyMul */
  unsigned char keyReg[GA_QKEY];    /* each key's register */
  int64_t keyMul[GA_QKEY];          /* code = sum of id * keyMul */
  int64_t nGroup;                   /* groups there can be at most (the dropped rows' too);
                                    ** 0: not known */
  int64_t keyLo;                    /* keyNum's keys folded by code (query.cu, 10): the least
                                    ** integer key, code 0 (set by the backend for a run) */
  int64_t nCode;                    /* ... their codes, with keyLo, where an earlier run of
                                    ** the program over the same columns found them (kept.c):
                                    ** the range pass is not run again; 0: not known */
  int nFold;                        /* folds */
  unsigned char foldReg[GA_QFOLD];  /* each one's value register */
  unsigned char foldReal[GA_QFOLD]; /* ... 0: never a REAL (no window to choose) */
  unsigned char foldExt[GA_QFOLD];  /* ... 1: a min() or max() reads its extremes */
  uint64_t tabId;                   /* its tables' identity: nonzero, no other tables in the
                                    ** process have it, so a device may keep them by it
                                    ** (ext/query/kept.c numbers them); 0: none */
} ga_qprog;

/* The group rows the filter drops go to (point 4). */
#define GA_Q_DROPPED_META GA_K_BLOB
#define GA_Q_DROPPED_KEY  0

GA_HD int ga_q_truth(int c, int64_t v){   /* 1 true, 0 false, -1 NULL */
  if( c == GA_QC_NULL ) return -1;
  if( c == GA_QC_INT ) return v != 0;
  return ga_bits_real((uint64_t)v) != 0.0;
}

GA_HD double ga_q_real(int c, int64_t v){
  return c == GA_QC_INT ? (double)v : ga_bits_real((uint64_t)v);
}

/* sqlite3VdbeIntValue of a REAL (doubleToInt64). */
GA_HD int64_t ga_q_toint(double r){
  if( r <= -9223372036854775808.0 ) return INT64_MIN;
  if( r >= 9223372036854775807.0 ) return INT64_MAX;
  return (int64_t)r;
}

GA_HD void ga_q_setreal(double d, unsigned char *pc, int64_t *pv){
  if( d != d ){ *pc = GA_QC_NULL; *pv = 0; return; }
  *pc = GA_QC_REAL;
  *pv = (int64_t)ga_bits(d);
}

/* OP_Add ... OP_Remainder over two numbers or NULLs: b op a (L op R). */
GA_HD void ga_q_arith(int op, int cl, int64_t vl, int cr, int64_t vr, unsigned char *pc, int64_t *pv){
  double rA, rB;
  if( cl == GA_QC_NULL || cr == GA_QC_NULL ){ *pc = GA_QC_NULL; *pv = 0; return; }
  if( cl == GA_QC_INT && cr == GA_QC_INT ){
    int64_t iB = vl, iA = vr, r;
    switch( op ){
      case GA_Q_ADD:
        r = (int64_t)((uint64_t)iB + (uint64_t)iA);
        if( ((iB ^ r) & (iA ^ r)) < 0 ) goto fp;
        break;
      case GA_Q_SUB:
        r = (int64_t)((uint64_t)iB - (uint64_t)iA);
        if( ((iB ^ iA) & (iB ^ r)) < 0 ) goto fp;
        break;
      case GA_Q_MUL: {
        __int128 m = (__int128)iB * iA;
        if( m < INT64_MIN || m > INT64_MAX ) goto fp;
        r = (int64_t)m;
        break;
      }
      case GA_Q_DIV:
        if( iA == 0 ){ *pc = GA_QC_NULL; *pv = 0; return; }
        if( iA == -1 && iB == INT64_MIN ) goto fp;
        r = iB / iA;
        break;
      default:
        if( iA == 0 ){ *pc = GA_QC_NULL; *pv = 0; return; }
        if( iA == -1 ) iA = 1;
        r = iB % iA;
        break;
    }
    *pc = GA_QC_INT;
    *pv = r;
    return;
  }
fp:
  rA = ga_q_real(cr, vr);
  rB = ga_q_real(cl, vl);
  switch( op ){
    case GA_Q_ADD: rB = rB + rA; break;
    case GA_Q_SUB: rB = rB - rA; break;
    case GA_Q_MUL: rB = rB * rA; break;
    case GA_Q_DIV:
      if( rA == 0.0 ){ *pc = GA_QC_NULL; *pv = 0; return; }
      rB = rB / rA;
      break;
    default: {
      int64_t a = cr == GA_QC_INT ? vr : ga_q_toint(rA);
      int64_t b = cl == GA_QC_INT ? vl : ga_q_toint(rB);
      if( a == 0 ){ *pc = GA_QC_NULL; *pv = 0; return; }
      if( a == -1 ) a = 1;
      rB = (double)(b % a);
      break;
    }
  }
  ga_q_setreal(rB, pc, pv);
}

/* OP_Eq ... and IS, IS NOT over two numbers or NULLs. */
GA_HD void ga_q_compare(int op, int cl, int64_t vl, int cr, int64_t vr, unsigned char *pc, int64_t *pv){
  int c;
  if( cl == GA_QC_NULL || cr == GA_QC_NULL ){
    int eq = cl == cr;
    if( op == GA_Q_IS ){ *pc = GA_QC_INT; *pv = eq; }
    else if( op == GA_Q_ISNOT ){ *pc = GA_QC_INT; *pv = !eq; }
    else { *pc = GA_QC_NULL; *pv = 0; }
    return;
  }
  c = ga_num_cmp((uint64_t)vl, cl == GA_QC_INT ? GA_T_INT : GA_T_REAL, (uint64_t)vr, cr == GA_QC_INT ? GA_T_INT : GA_T_REAL);
  switch( op ){
    case GA_Q_EQ: case GA_Q_IS: c = c == 0; break;
    case GA_Q_NE: case GA_Q_ISNOT: c = c != 0; break;
    case GA_Q_LT: c = c < 0; break;
    case GA_Q_LE: c = c <= 0; break;
    case GA_Q_GT: c = c > 0; break;
    default: c = c >= 0; break;
  }
  *pc = GA_QC_INT;
  *pv = c;
}

/* GA_Q_HASH's first slot for key v (2b): Fibonacci hashing, the top
** 64 - shift bits of v times 2^64 over the golden ratio. */
GA_HD uint64_t ga_q_hash(int64_t v, int shift){
  return ((uint64_t)v * 0x9E3779B97F4A7C15ull) >> shift;
}

/* Operand o of one row (registers, columns and row as ga_q_step has them). */
GA_HD void ga_q_in(const ga_qprog *p, int o, const unsigned char *rc, const int64_t *rv, int s,
                   const unsigned char *const *colC, const int64_t *const *colV, int64_t i, int *pc, int64_t *pv){
  if( o < GA_QO_LIT ){ *pc = rc[o*s]; *pv = rv[o*s]; }
  else if( o < GA_QO_COL ){ *pc = p->litT[o - GA_QO_LIT]; *pv = p->litV[o - GA_QO_LIT]; }
  else { *pc = colC[o - GA_QO_COL][i]; *pv = colV[o - GA_QO_COL][i]; }
}

/* One instruction over one row: registers rc/rv (stride s: register r of
** this row at [r*s]), the row's column values colC/colV (column x of this
** row at colC[x][i], colV[x][i]), the tables tabC/tabV. */
GA_HD void ga_q_step(const ga_qprog *p, const ga_qins *in, unsigned char *rc, int64_t *rv, int s,
                     const unsigned char *const *colC, const int64_t *const *colV, int64_t i,
                     const unsigned char *tabC, const int64_t *tabV){
  unsigned char *oc = &rc[in->dst*s];
  int64_t *ov = &rv[in->dst*s];
  switch( in->op ){
    case GA_Q_COL: *oc = colC[in->x][i]; *ov = colV[in->x][i]; return;
    case GA_Q_LIT: *oc = p->litT[in->x]; *ov = p->litV[in->x]; return;
    case GA_Q_MAP: {
      /* column a's row: a TEXT or BLOB value's place, or NULL (the last entry) */
      int64_t k = colC[in->a][i] == GA_QC_NULL ? p->tabN[in->x] - 1 : colV[in->a][i];
      k += p->tabOff[in->x];
      *oc = tabC[k];
      *ov = tabV[k];
      return;
    }
    default: break;
  }
  {
    int ca, cb = 0;
    int64_t va, vb = 0;
    ga_q_in(p, in->a, rc, rv, s, colC, colV, i, &ca, &va);  /* read before dst (it may be a) is written */
    switch( in->op ){
      case GA_Q_NOT: {
        int x = ga_q_truth(ca, va);
        *oc = x < 0 ? GA_QC_NULL : GA_QC_INT;
        *ov = x < 0 ? 0 : !x;
        return;
      }
      case GA_Q_CASTINT:
        *oc = (unsigned char)ca;
        *ov = ca == GA_QC_REAL ? ga_q_toint(ga_bits_real((uint64_t)va)) : va;
        if( ca == GA_QC_REAL ) *oc = GA_QC_INT;
        return;
      case GA_Q_CASTREAL:
        *oc = (unsigned char)ca;
        *ov = ca == GA_QC_INT ? (int64_t)ga_bits((double)va) : va;
        if( ca == GA_QC_INT ) *oc = GA_QC_REAL;
        return;
      case GA_Q_ISNULL: case GA_Q_NOTNULL:
        *oc = GA_QC_INT;
        *ov = in->op == GA_Q_ISNULL ? ca == GA_QC_NULL : ca != GA_QC_NULL;
        return;
      case GA_Q_IF:
        if( ga_q_truth(rc[in->x*s], rv[in->x*s]) != 1 ) ga_q_in(p, in->b, rc, rv, s, colC, colV, i, &ca, &va);
        *oc = (unsigned char)ca;
        *ov = va;
        return;
      case GA_Q_LOOK: {
        uint64_t k = (uint64_t)va - (uint64_t)p->tabLo[in->x];
        if( ca != GA_QC_INT || k >= (uint64_t)p->tabN[in->x] ){ *oc = GA_QC_NULL; *ov = 0; return; }
        k += (uint64_t)p->tabOff[in->x];
        *oc = tabC[k];
        *ov = tabV[k];
        return;
      }
      case GA_Q_HASH: {
        const uint64_t mask = (uint64_t)p->tabN[in->x] / 2 - 1;
        uint64_t h;
        *oc = GA_QC_NULL;
        *ov = 0;
        if( ca != GA_QC_INT ) return;
        for(h = ga_q_hash(va, (int)p->tabLo[in->x]);; h = (h + 1) & mask){
          const int64_t k = p->tabOff[in->x] + 2 * (int64_t)h;
          if( tabC[k] == GA_QC_NULL ) return;
          if( tabV[k] == va ){ *oc = tabC[k + 1]; *ov = tabV[k + 1]; return; }
        }
      }
      default: break;
    }
    ga_q_in(p, in->b, rc, rv, s, colC, colV, i, &cb, &vb);
    switch( in->op ){
      case GA_Q_ADD: case GA_Q_SUB: case GA_Q_MUL: case GA_Q_DIV: case GA_Q_REM:
        ga_q_arith(in->op, ca, va, cb, vb, oc, ov);
        break;
      case GA_Q_MIN: case GA_Q_MAX: {
        int c;
        if( ca == GA_QC_NULL || cb == GA_QC_NULL ){ *oc = GA_QC_NULL; *ov = 0; break; }
        c = ga_num_cmp((uint64_t)va, ca == GA_QC_INT ? GA_T_INT : GA_T_REAL, (uint64_t)vb, cb == GA_QC_INT ? GA_T_INT : GA_T_REAL);
        if( in->op == GA_Q_MIN ? c >= 0 : c < 0 ){ *oc = (unsigned char)cb; *ov = vb; }
        else { *oc = (unsigned char)ca; *ov = va; }
        break;
      }
      case GA_Q_AND: case GA_Q_OR: {
        int x = ga_q_truth(ca, va), y = ga_q_truth(cb, vb), r;
        if( in->op == GA_Q_AND ) r = (x == 0 || y == 0) ? 0 : (x < 0 || y < 0) ? -1 : 1;
        else r = (x == 1 || y == 1) ? 1 : (x < 0 || y < 0) ? -1 : 0;
        *oc = r < 0 ? GA_QC_NULL : GA_QC_INT;
        *ov = r < 0 ? 0 : r;
        break;
      }
      default:
        ga_q_compare(in->op, ca, va, cb, vb, oc, ov);
        break;
    }
  }
}

/* The registers instruction in reads (-1: none): a, b, and GA_Q_IF's
** condition x. Only before ga_q_finish, where every operand is a register. */
static inline void ga_q_operands(const ga_qins *in, int *pa, int *pb, int *px){
  *pa = *pb = *px = -1;
  switch( in->op ){
    case GA_Q_COL: case GA_Q_LIT: case GA_Q_MAP: return;
    case GA_Q_NOT: case GA_Q_ISNULL: case GA_Q_NOTNULL: case GA_Q_CASTINT: case GA_Q_CASTREAL: case GA_Q_LOOK:
    case GA_Q_HASH:
      *pa = in->a;
      return;
    case GA_Q_IF: *px = in->x; /* fall through */
    default: *pa = in->a; *pb = in->b; return;
  }
}

/* Make p runnable as its maker (compile.c, bench_kernels) wrote it: each
** of its registers (fewer than GA_QVREG) written once, every operand a
** register. Host only.
**   1. fuse: each GA_Q_COL and GA_Q_LIT whose register is no output is
**      folded into the instructions that read it, as a column or literal
**      operand (GA_QO_*; never GA_Q_IF's condition): fewer instructions to
**      dispatch and registers to keep, the same values.
**   2. Registers given again, one reused once its value is read for the
**      last time (the outputs live to the end), so that a row needs fewer
**      of them (the interpreter's shared memory).
** Returns p->nReg, the registers it needs now: more than GA_QREG, and p
** must not run. */
static inline int ga_q_finish(ga_qprog *p, int fuse){
  int enc[GA_QVREG], writes[GA_QVREG], last[GA_QVREG], map[GA_QVREG], used[GA_QVREG];
  int encA[GA_QINS], encB[GA_QINS];
  int k, j, r, a, b, x, n = 0, nReg = 0;
  for(j = 0; j < GA_QVREG; j++){ enc[j] = -1; writes[j] = 0; last[j] = -1; map[j] = -1; used[j] = 0; }
  for(k = 0; k < p->nIns; k++) writes[p->ins[k].dst]++;
  if( p->filter >= 0 ) writes[p->filter] = 2;     /* outputs stay registers */
  for(j = 0; j < p->nKey; j++) writes[p->keyReg[j]] = 2;
  for(j = 0; j < p->nFold; j++) writes[p->foldReg[j]] = 2;
  for(j = 0; j < p->nStage; j++) writes[p->stageReg[j]] = 2;
  for(k = 0; k < p->nIns; k++) if( p->ins[k].op == GA_Q_IF ) writes[p->ins[k].x] = 2;   /* conditions stay registers */
  for(k = 0; fuse && k < p->nIns; k++){
    const ga_qins *in = &p->ins[k];
    if( writes[in->dst] == 1 && in->op == GA_Q_COL && in->x < GA_QCOL ) enc[in->dst] = GA_QO_COL + in->x;
    if( writes[in->dst] == 1 && in->op == GA_Q_LIT && in->x < GA_QLIT ) enc[in->dst] = GA_QO_LIT + in->x;
  }
  /* 1: the folded loads dropped, their readers' operands noted */
  for(k = 0, j = 0; k < p->nIns; k++){
    ga_qins in = p->ins[k];
    for(; j < p->nStage && p->stageEnd[j] == k; j++) p->stageEnd[j] = n;
    if( (in.op == GA_Q_COL || in.op == GA_Q_LIT) && enc[in.dst] >= 0 ) continue;
    ga_q_operands(&in, &a, &b, &x);
    encA[n] = a >= 0 ? enc[a] : -1;
    encB[n] = b >= 0 ? enc[b] : -1;
    p->ins[n++] = in;
  }
  for(; j < p->nStage; j++) p->stageEnd[j] = n;
  p->nIns = n;
  /* 2: each value's last read, then registers from the least free one */
  for(k = 0; k < n; k++){
    ga_q_operands(&p->ins[k], &a, &b, &x);
    if( a >= 0 && encA[k] < 0 ) last[a] = k;
    if( b >= 0 && encB[k] < 0 ) last[b] = k;
    if( x >= 0 ) last[x] = k;
  }
  if( p->filter >= 0 ) last[p->filter] = n;
  for(j = 0; j < p->nStage; j++) if( last[p->stageReg[j]] < p->stageEnd[j] ) last[p->stageReg[j]] = p->stageEnd[j];
  for(j = 0; j < p->nKey; j++) last[p->keyReg[j]] = n;
  for(j = 0; j < p->nFold; j++) last[p->foldReg[j]] = n;
  for(k = 0; k < n; k++){
    ga_qins *in = &p->ins[k];
    int v = in->dst;
    ga_q_operands(in, &a, &b, &x);
    if( a >= 0 ) in->a = (unsigned char)(encA[k] >= 0 ? encA[k] : map[a]);
    if( b >= 0 ) in->b = (unsigned char)(encB[k] >= 0 ? encB[k] : map[b]);
    if( x >= 0 ) in->x = map[x];
    if( a >= 0 && encA[k] < 0 && last[a] == k ) used[map[a]] = 0;
    if( b >= 0 && encB[k] < 0 && last[b] == k ) used[map[b]] = 0;
    if( x >= 0 && last[x] == k ) used[map[x]] = 0;
    for(r = 0; used[r]; r++){}
    used[r] = 1;
    map[v] = r;
    in->dst = (unsigned char)r;
    if( r + 1 > nReg ) nReg = r + 1;
    if( last[v] < 0 ) used[r] = 0;                 /* never read */
  }
  if( p->filter >= 0 ) p->filter = map[p->filter];
  for(j = 0; j < p->nStage; j++) p->stageReg[j] = (unsigned char)map[p->stageReg[j]];
  for(j = 0; j < p->nKey; j++) p->keyReg[j] = (unsigned char)map[p->keyReg[j]];
  for(j = 0; j < p->nFold; j++) p->foldReg[j] = (unsigned char)map[p->foldReg[j]];
  return p->nReg = nReg;
}

/* The group row of a row whose registers are evaluated: its key and key
** meta (point 4). */
GA_HD void ga_q_key(const ga_qprog *p, const unsigned char *rc, const int64_t *rv, int s, uint64_t *pKey,
                    unsigned char *pMeta){
  int k;
  if( p->filter >= 0 && ga_q_truth(rc[p->filter*s], rv[p->filter*s]) != 1 ){
    *pKey = GA_Q_DROPPED_KEY;
    *pMeta = GA_Q_DROPPED_META;
    return;
  }
  if( p->keyNum ){
    int c = rc[p->keyReg[0]*s];
    int64_t v = rv[p->keyReg[0]*s];
    if( c == GA_QC_INT ){ *pKey = (uint64_t)v; *pMeta = GA_K_INT; }
    else if( c == GA_QC_NULL ){ *pKey = 0; *pMeta = GA_K_NULL; }
    else {
      double d = ga_bits_real((uint64_t)v);
      if( d >= -9223372036854775808.0 && d < 9223372036854775808.0 && (double)(int64_t)d == d ){
        *pMeta = d == 0.0 && v < 0 ? GA_K_INTZ : GA_K_INTR;
        *pKey = (uint64_t)(int64_t)d;
      }else{
        *pMeta = GA_K_REAL;
        *pKey = (uint64_t)v;
      }
    }
    return;
  }
  {
    uint64_t code = 0;
    for(k = 0; k < p->nKey; k++) code += (uint64_t)rv[p->keyReg[k]*s] * (uint64_t)p->keyMul[k];
    *pKey = code;
    *pMeta = GA_K_INT;
  }
}

/* A row's class for an order (point 5): dropped by the filter, NULL, an
** INTEGER or a REAL (its key in *pKey). */
#define GA_QO_DROPPED 0
#define GA_QO_NULL    1
#define GA_QO_INT     2
#define GA_QO_REAL    3
/* A number's key in its order (point 5): an int64's bits (isInt) or a
** double's (ext/query/order.c's keys are these too). */
GA_HD uint64_t ga_q_num_key(int isInt, uint64_t b){
  if( isInt ) return b ^ 0x8000000000000000ull;
  if( (b << 1) == 0 ) b = 0;                                    /* -0.0 is 0.0 */
  return (b >> 63) ? ~b : b | 0x8000000000000000ull;
}

GA_HD int ga_q_order_key(const ga_qprog *p, const unsigned char *rc, const int64_t *rv, int s, int desc,
                         uint64_t *pKey){
  int c = rc[p->keyReg[0]*s];
  uint64_t b;
  if( p->filter >= 0 && ga_q_truth(rc[p->filter*s], rv[p->filter*s]) != 1 ) return GA_QO_DROPPED;
  if( c == GA_QC_NULL ) return GA_QO_NULL;
  b = ga_q_num_key(c == GA_QC_INT, (uint64_t)rv[p->keyReg[0]*s]);
  *pKey = desc ? ~b : b;
  return c == GA_QC_INT ? GA_QO_INT : GA_QO_REAL;
}

/* A fold's value and lane (group_acc.h (1)): register r. */
GA_HD void ga_q_val(const unsigned char *rc, const int64_t *rv, int s, int r, uint64_t *pVal, unsigned char *pMeta){
  int c = rc[r*s];
  *pVal = (uint64_t)rv[r*s];
  *pMeta = c == GA_QC_INT ? GA_V_INT : c == GA_QC_REAL ? GA_V_REAL : 0;
  if( c == GA_QC_NULL ) *pVal = 0;
}

#endif /* GPUAGG_QPROG_H */
