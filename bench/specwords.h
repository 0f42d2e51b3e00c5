/*
** What bench/ssb.c, bench/tpch.c and bench/lineitem.c share: TPC-H's domains
** (clause 4.2.3's nations and regions, 4.2.2.13's words for parts,
** segments, priorities and ship modes) and two small helpers. Header-only:
** each generator takes what it uses.
*/
#ifndef GPUAGG_SPECWORDS_H
#define GPUAGG_SPECWORDS_H
#include <stdarg.h>
#include <stdio.h>

#define N(a) ((int)(sizeof(a)/sizeof(a[0])))

/* TPC-H's nations in key order, each with its region's key. */
static const char *const azNation[25] = {
  "ALGERIA", "ARGENTINA", "BRAZIL", "CANADA", "EGYPT", "ETHIOPIA", "FRANCE", "GERMANY", "INDIA", "INDONESIA",
  "IRAN", "IRAQ", "JAPAN", "JORDAN", "KENYA", "MOROCCO", "MOZAMBIQUE", "PERU", "CHINA", "ROMANIA",
  "SAUDI ARABIA", "VIETNAM", "RUSSIA", "UNITED KINGDOM", "UNITED STATES",
};
static const unsigned char aRegionOf[25] = { 0, 1, 1, 1, 4, 0, 3, 3, 2, 2, 4, 4, 2, 4, 0, 0, 0, 1, 2, 3, 4, 2, 3, 3, 1 };
static const char *const azRegion[5] = { "AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST" };

/* Words for parts: colors, types' and containers' syllables; market
** segments, order priorities, ship modes. */
static const char *const azColor[] = {
  "almond", "antique", "aquamarine", "azure", "beige", "bisque", "black", "blanched", "blue", "blush", "brown",
  "burlywood", "burnished", "chartreuse", "chiffon", "chocolate", "coral", "cornflower", "cornsilk", "cream",
  "cyan", "dark", "deep", "dim", "dodger", "drab", "firebrick", "floral", "forest", "frosted", "gainsboro",
  "ghost", "goldenrod", "green", "grey", "honeydew", "hot", "indian", "ivory", "khaki", "lace", "lavender",
  "lawn", "lemon", "light", "lime", "linen", "magenta", "maroon", "medium", "metallic", "midnight", "mint",
  "misty", "moccasin", "navajo", "navy", "olive", "orange", "orchid", "pale", "papaya", "peach", "peru", "pink",
  "plum", "powder", "puff", "purple", "red", "rose", "rosy", "royal", "saddle", "salmon", "sandy", "seashell",
  "sienna", "sky", "slate", "smoke", "snow", "spring", "steel", "tan", "thistle", "tomato", "turquoise",
  "violet", "wheat", "white", "yellow",
};
static const char *const azType1[] = { "STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO" };
static const char *const azType2[] = { "ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED" };
static const char *const azType3[] = { "TIN", "NICKEL", "BRASS", "STEEL", "COPPER" };
static const char *const azCont1[] = { "SM", "LG", "MED", "JUMBO", "WRAP" };
static const char *const azCont2[] = { "CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM" };
static const char *const azSegment[] = { "AUTOMOBILE", "BUILDING", "FURNITURE", "MACHINERY", "HOUSEHOLD" };
static const char *const azPriority[] = { "1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW" };
static const char *const azMode[] = { "REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB" };

/* zFmt's message into zErr[nErr] (nothing where zErr is NULL). */
static inline void bench_set_err(char *zErr, int nErr, const char *zFmt, ...){
  va_list ap;
  if( zErr==0 || nErr<=0 ) return;
  va_start(ap, zFmt);
  vsnprintf(zErr, (size_t)nErr, zFmt, ap);
  va_end(ap);
}

static inline int bench_is_leap(int y){ return y%4==0 && (y%100!=0 || y%400==0); }

#endif /* GPUAGG_SPECWORDS_H */
