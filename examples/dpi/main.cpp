// SPDX-License-Identifier: MIT
// The C++ harness of tb.sv: a clock, the plusargs, the exit status
// (0: every request agreed, 1: a disagreement, 2: the bench never ended).
#include <cstdio>
#include <memory>

#include "Vtb.h"
#include "Vtb__Dpi.h"
#include "verilated.h"
// Verilator's __Dpi.h and libwqe_dpi's header both declare the imported
// functions (extern "C"): a type that differs from what the package says
// fails to compile here instead of misbehaving at run time.
#include "wqe/dpi.h"

int main(int argc, char **argv)
{
	const auto ctx = std::make_unique<VerilatedContext>();
	ctx->commandArgs(argc, argv);
	const auto top = std::make_unique<Vtb>(ctx.get());
	// 4 cycles a request at most; a generous bound on a bench that hangs.
	const unsigned long long limit = 100000000ull;

	top->clk = 0;
	for (unsigned long long t = 0; !top->done && !ctx->gotFinish() && t < limit; t++) {
		top->clk = !top->clk;
		top->eval();
		ctx->timeInc(1);
	}
	top->final();
	if (!top->done) {
		std::fprintf(stderr, "tb: the bench did not finish\n");
		return 2;
	}
	return top->errors ? 1 : 0;
}
