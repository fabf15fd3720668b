/* names.c - the names of levels and edge kinds, below the checkers
 * (weak/, strong/) so that they need nothing from the dispatcher above
 * them. */
#include "verdict.h"

#include <stddef.h>
#include <string.h>

static const struct {
    const char *name;
    ip_level lvl;
} level_names[] = {
    {"rc", IP_LVL_RC},         {"read-committed", IP_LVL_RC},
    {"ra", IP_LVL_RA},         {"read-atomic", IP_LVL_RA},
    {"causal", IP_LVL_CAUSAL}, {"cc", IP_LVL_CAUSAL},
    {"si", IP_LVL_SI},         {"snapshot-isolation", IP_LVL_SI},
    {"ser", IP_LVL_SER},       {"serializable", IP_LVL_SER},
};

bool ip_level_parse(const char *name, ip_level *out)
{
    for (size_t i = 0; name && i < sizeof level_names / sizeof *level_names;
         i++)
        if (strcmp(name, level_names[i].name) == 0) {
            *out = level_names[i].lvl;
            return true;
        }
    return false;
}

const char *ip_level_name(ip_level lvl)
{
    switch (lvl) {
    case IP_LVL_RC: return "rc";
    case IP_LVL_RA: return "ra";
    case IP_LVL_CAUSAL: return "causal";
    case IP_LVL_SI: return "si";
    case IP_LVL_SER: return "ser";
    default: return "unknown";
    }
}

const char *ip_edge_kind_name(ip_edge_kind k)
{
    switch (k) {
    case IP_EDGE_SO: return "so";
    case IP_EDGE_WR: return "wr";
    case IP_EDGE_WW: return "ww";
    case IP_EDGE_RW: return "rw";
    case IP_EDGE_CO: return "co";
    }
    return "unknown";
}
