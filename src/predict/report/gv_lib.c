/* gv_lib.c - Graphviz's libraries opened at run time (see gv_lib.h). */
#include "gv_lib.h"

#include <dlfcn.h>
#include <errno.h>

/* Each pointer type against the header's declaration.  _Generic does not
 * evaluate its operand, so this refers to no symbol (nothing links
 * Graphviz), yet a prototype that differs from ours is a compile error. */
#define GV_SAME(name, type) \
    _Static_assert(_Generic(&name, type *: 1, default: 0), \
                   #name ": the pointer's type differs from Graphviz's header")
GV_SAME(agopen, ip_gv_agopen);
GV_SAME(agclose, ip_gv_agclose);
GV_SAME(agsubg, ip_gv_agsubg);
GV_SAME(agnode, ip_gv_agnode);
GV_SAME(agedge, ip_gv_agedge);
GV_SAME(agattr, ip_gv_agattr);
GV_SAME(agsafeset, ip_gv_agsafeset);
GV_SAME(agstrdup_html, ip_gv_agstrdup_html);
GV_SAME(agstrfree, ip_gv_agstrfree);
GV_SAME(gvContext, ip_gv_gvContext);
GV_SAME(gvFreeContext, ip_gv_gvFreeContext);
GV_SAME(gvLayout, ip_gv_gvLayout);
GV_SAME(gvFreeLayout, ip_gv_gvFreeLayout);
GV_SAME(gvRenderData, ip_gv_gvRenderData);
GV_SAME(gvFreeRenderData, ip_gv_gvFreeRenderData);
GV_SAME(Agdirected, Agdesc_t);
GV_SAME(AgMemDisc, Agmemdisc_t);
GV_SAME(AgIoDisc, Agiodisc_t);

/* The loader's last failure, about `lib`, into err.  Out of memory or
 * not?  The loader allocates with the C library's malloc, out of reach
 * of tests/oom's failalloc, so the answer has to come from the loader:
 * glibc's dlerror sets errno to the error code of the failure it
 * describes when there is one - ENOMEM for each allocation the loader
 * makes (an object's descriptor, its dependency and search lists, its
 * version table, ...) - and when it could not even record the failure it
 * answers "out of memory" right after the malloc that failed and set
 * errno to ENOMEM.  Other failures (no such file, not an ELF object, a
 * missing symbol) carry another code or none, and errno was cleared
 * before the call.  So ENOMEM here is an allocation that failed - exit 3
 * like any other (tests/oom/dlopen_oom.sh fails each of them in turn) -
 * and anything else means Graphviz is not available.  One limit: a
 * segment that cannot be mapped (the address space exhausted under
 * ulimit -v) carries no code in glibc 2.36, so it is reported as not
 * available, with the loader's "failed to map segment" in the message. */
static bool loader_failed(const char *lib, ip_error *err)
{
    const char *why = dlerror();
    if (errno == ENOMEM)
        return ip_oom(err, "draw: out of memory loading %s: %s", lib,
                      why ? why : "");
    return ip_fail(err, "the HTML report needs Graphviz (Debian: libgvc6, "
                   "libcgraph6), and %s cannot be loaded: %s", lib,
                   why ? why : "no reason given");
}

static void *open_lib(const char *lib, ip_error *err)
{
    /* RTLD_LOCAL: GVC loads its plugins itself (libltdl), and each plugin
     * names libgvc as its own dependency, so nothing needs Graphviz's
     * symbols in the global scope */
    errno = 0;
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        loader_failed(lib, err);
    return h;
}

static void *find(void *h, const char *lib, const char *sym, ip_error *err)
{
    (void)dlerror();          /* a NULL symbol is told by dlerror alone */
    errno = 0;
    void *p = dlsym(h, sym);
    if (!p)
        loader_failed(lib, err);
    return p;
}

static bool find_cgraph(ip_gv *gv, ip_error *err)
{
    void *h = gv->cgraph;
    const char *l = IP_GV_CGRAPH;
    const Agdesc_t *directed = find(h, l, "Agdirected", err);
    if (!directed ||
        !(gv->agopen = find(h, l, "agopen", err)) ||
        !(gv->agclose = find(h, l, "agclose", err)) ||
        !(gv->agsubg = find(h, l, "agsubg", err)) ||
        !(gv->agnode = find(h, l, "agnode", err)) ||
        !(gv->agedge = find(h, l, "agedge", err)) ||
        !(gv->agattr = find(h, l, "agattr", err)) ||
        !(gv->agsafeset = find(h, l, "agsafeset", err)) ||
        !(gv->agstrdup_html = find(h, l, "agstrdup_html", err)) ||
        !(gv->agstrfree = find(h, l, "agstrfree", err)) ||
        !(gv->mem = find(h, l, "AgMemDisc", err)) ||
        !(gv->io = find(h, l, "AgIoDisc", err)))
        return false;
    gv->directed = *directed;
    return true;
}

static bool find_gvc(ip_gv *gv, ip_error *err)
{
    void *h = gv->gvc;
    const char *l = IP_GV_GVC;
    return (gv->gvContext = find(h, l, "gvContext", err)) &&
           (gv->gvFreeContext = find(h, l, "gvFreeContext", err)) &&
           (gv->gvLayout = find(h, l, "gvLayout", err)) &&
           (gv->gvFreeLayout = find(h, l, "gvFreeLayout", err)) &&
           (gv->gvRenderData = find(h, l, "gvRenderData", err)) &&
           (gv->gvFreeRenderData = find(h, l, "gvFreeRenderData", err));
}

bool ip_gv_open(ip_gv *gv, ip_error *err)
{
    *gv = (ip_gv){0};
    bool ok = (gv->cgraph = open_lib(IP_GV_CGRAPH, err)) &&
              find_cgraph(gv, err) &&
              (gv->gvc = open_lib(IP_GV_GVC, err)) && find_gvc(gv, err);
    if (!ok)
        ip_gv_close(gv);
    return ok;
}

void ip_gv_close(ip_gv *gv)
{
    if (gv->gvc)
        dlclose(gv->gvc);
    if (gv->cgraph)
        dlclose(gv->cgraph);
    *gv = (ip_gv){0};
}
