/*
 * gv_lib.h - Graphviz's libraries loaded at run time (internal to the
 * report room; draw.c is the one user).
 *
 * Only the HTML report draws, yet every isopredict process paid for
 * libgvc, libcgraph and their dependencies at start-up when it linked
 * them - twice, as it re-executes itself for malloc's huge pages.  So
 * they are opened by soname with dlopen when a drawer is made, and closed
 * with it.  The headers stay the source of the types: each pointer's type
 * is checked against the header's prototype at compile time (gv_lib.c),
 * so a signature that changes fails to compile rather than to run.
 *
 * Ownership: an ip_gv owns its two library handles; the function pointers
 * are valid from a successful ip_gv_open until ip_gv_close.  (Closing
 * drops our references only: GVC's text layout plugin, which GVC loads
 * itself and never unloads, keeps both libraries mapped until exit - so
 * the LeakSanitizer suppressions of tests/ still find their frames by
 * library name.)
 */
#ifndef ISOPREDICT_GV_LIB_H
#define ISOPREDICT_GV_LIB_H

#include <graphviz/gvc.h>
#include <stdbool.h>
#include "trace.h"

#define IP_GV_CGRAPH "libcgraph.so.6"
#define IP_GV_GVC "libgvc.so.6"

typedef Agraph_t *ip_gv_agopen(char *name, Agdesc_t desc, Agdisc_t *disc);
typedef int ip_gv_agclose(Agraph_t *g);
typedef Agraph_t *ip_gv_agsubg(Agraph_t *g, char *name, int cflag);
typedef Agnode_t *ip_gv_agnode(Agraph_t *g, char *name, int createflag);
typedef Agedge_t *ip_gv_agedge(Agraph_t *g, Agnode_t *t, Agnode_t *h,
                               char *name, int createflag);
typedef Agsym_t *ip_gv_agattr(Agraph_t *g, int kind, char *name,
                              char *value);
typedef int ip_gv_agsafeset(void *obj, char *name, char *value, char *def);
typedef char *ip_gv_agstrdup_html(Agraph_t *g, char *s);
typedef int ip_gv_agstrfree(Agraph_t *g, char *s);
typedef GVC_t *ip_gv_gvContext(void);
typedef int ip_gv_gvFreeContext(GVC_t *gvc);
typedef int ip_gv_gvLayout(GVC_t *gvc, graph_t *g, const char *engine);
typedef int ip_gv_gvFreeLayout(GVC_t *gvc, graph_t *g);
typedef int ip_gv_gvRenderData(GVC_t *gvc, graph_t *g, const char *format,
                               char **result, unsigned int *length);
typedef void ip_gv_gvFreeRenderData(char *data);

typedef struct ip_gv {
    void *cgraph, *gvc;       /* dlopen handles; NULL: not open */
    Agdesc_t directed;        /* cgraph's Agdirected, copied */
    Agmemdisc_t *mem;         /* cgraph's AgMemDisc and AgIoDisc, for a */
    Agiodisc_t *io;           /* discipline of our own (draw.c) */
    ip_gv_agopen *agopen;
    ip_gv_agclose *agclose;
    ip_gv_agsubg *agsubg;
    ip_gv_agnode *agnode;
    ip_gv_agedge *agedge;
    ip_gv_agattr *agattr;
    ip_gv_agsafeset *agsafeset;
    ip_gv_agstrdup_html *agstrdup_html;
    ip_gv_agstrfree *agstrfree;
    ip_gv_gvContext *gvContext;
    ip_gv_gvFreeContext *gvFreeContext;
    ip_gv_gvLayout *gvLayout;
    ip_gv_gvFreeLayout *gvFreeLayout;
    ip_gv_gvRenderData *gvRenderData;
    ip_gv_gvFreeRenderData *gvFreeRenderData;
} ip_gv;

/* Open libcgraph.so.6 and libgvc.so.6 and find the functions above.
 * False with err set and nothing left open on failure: err->oom when the
 * loader ran out of memory, otherwise Graphviz is not available (a
 * library missing or broken, a symbol missing), and the message names the
 * library and gives the loader's reason. */
bool ip_gv_open(ip_gv *gv, ip_error *err);

/* Close what ip_gv_open opened (nothing when it failed); zeroes gv. */
void ip_gv_close(ip_gv *gv);

#endif
