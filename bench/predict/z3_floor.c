/* z3_floor.c - Z3's own start-up, the floor under a small prediction's
 * time (startup.sh): a context made, an empty solver checked, both freed.
 * Exit 0 when the empty solver is satisfiable, as it must be. */
#include <z3.h>

int main(void)
{
    Z3_config cfg = Z3_mk_config();
    Z3_context ctx = Z3_mk_context(cfg);
    Z3_del_config(cfg);
    Z3_solver s = Z3_mk_solver(ctx);
    Z3_solver_inc_ref(ctx, s);
    Z3_lbool r = Z3_solver_check(ctx, s);
    Z3_solver_dec_ref(ctx, s);
    Z3_del_context(ctx);
    return r == Z3_L_TRUE ? 0 : 1;
}
