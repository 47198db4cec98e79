//===- VerificationTest.cpp - unit tests for the symbolic model -----------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Dialect/Tile/IR/TileOps.h"
#include "TileTag/InitAll.h"
#include "TileTag/Verification/CheckKernel.h"
#include "TileTag/Verification/Prover.h"
#include "TileTag/Verification/SymbolicModel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <map>

using namespace mlir;
using namespace mlir::tiletag;
using namespace mlir::tiletag::verify;

namespace {

constexpr StringLiteral kKernel = R"mlir(
  tile.kernel @k(%X: memref<?x?xf32> {tile.name = "X"}) grid(1) attributes {
      tile.launch = #tile.launch<sizes = [M = 8, N = 8], grid = [M ceildiv 64],
                                 shapes = [X = [M, N]]>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    %p = tile.program_id 0
    %N = memref.dim %X, %c1 : memref<?x?xf32>
    %steps = arith.ceildivui %N, %c64 : index
    %s = tile.alloc_shared : memref<4x8xf32, #gpu.address_space<workgroup>>
    scf.for %k = %c0 to %steps step %c1 {
      %slot = arith.remui %k, %c4 : index
      %t = arith.constant {name = "write"} dense<0.0> : tensor<8xf32>
      tile.write %t, %s[%slot] : tensor<8xf32> -> memref<4x8xf32, #gpu.address_space<workgroup>>
      %r = tile.read %s[%slot] : memref<4x8xf32, #gpu.address_space<workgroup>> -> tensor<8xf32>
    }
    tile.return
  })mlir";

class VerificationTest : public ::testing::Test {
protected:
  VerificationTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    module = parseSourceString<ModuleOp>(kKernel, &context);
    kernel = *module->getOps<tile::KernelOp>().begin();
    kernel.walk([&](Operation *op) {
      if (isa<tile::WriteOp>(op))
        write = op;
      if (isa<tile::ReadOp>(op))
        read = op;
      if (auto l = dyn_cast<scf::ForOp>(op))
        loop = l;
    });
  }

  /// True if `claim` holds in every execution that satisfies `facts`.
  bool holds(Prover &prover, const z3::expr &facts, const z3::expr &claim) {
    return prover.check(facts && !claim, "test").kind == Verdict::Unsat;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  tile::KernelOp kernel;
  Operation *write = nullptr, *read = nullptr;
  scf::ForOp loop;
};

TEST_F(VerificationTest, TermsFollowIndexArithmetic) {
  z3::context ctx;
  SymbolicModel model(kernel, ctx);
  Prover prover(ctx, 1000000, "", "test");
  Instance inst{"", {}};
  z3::expr steps = model.term(loop.getUpperBound(), inst);
  z3::expr n = ctx.int_const("X.dim1");
  z3::expr facts = model.assumptions();
  // steps = ceil(N / 64) for every N >= 0, and the launch ties X.dim1 to N.
  EXPECT_TRUE(holds(prover, facts, steps * 64 >= n && (steps - 1) * 64 < n));
  EXPECT_TRUE(holds(prover, facts, ctx.int_const("size.N") == n));
  // The grid covers M: the program id times 64 stays below M + 63.
  z3::expr pid = ctx.int_const("pid0");
  kernel.walk([&](tile::ProgramIdOp p) { model.term(p, inst); });
  EXPECT_TRUE(
      holds(prover, model.assumptions(), pid * 64 < ctx.int_const("size.M")));
}

TEST_F(VerificationTest, SequentialOrderOfInstances) {
  z3::context ctx;
  SymbolicModel model(kernel, ctx);
  Prover prover(ctx, 1000000, "", "test");
  Instance a{"@a", {}}, b{"@b", {}};
  z3::expr ka = model.inductionVar(loop, a), kb = model.inductionVar(loop, b);
  // Within one iteration the write comes first; across iterations, the
  // earlier iteration does.
  EXPECT_TRUE(holds(prover, ka == kb, model.before(write, a, read, b)));
  EXPECT_TRUE(holds(prover, ka == kb, !model.before(read, a, write, b)));
  EXPECT_TRUE(holds(prover, ka < kb, model.before(read, a, write, b)));
  EXPECT_TRUE(holds(prover, ka == kb, !model.before(write, a, write, b)));
  // Execution implies the loop domain.
  z3::expr ex = model.executes(write, a) && model.assumptions();
  EXPECT_TRUE(holds(prover, ex, ka >= 0));
  EXPECT_FALSE(holds(prover, ex, ka < 3));
}

TEST_F(VerificationTest, StatedInstancesChangeNoQuantifiedFact) {
  z3::context ctx;
  SymbolicModel model(kernel, ctx);
  Prover prover(ctx, 1000000, "", "test");
  Instance w{"@w", {}}, r{"@r", {}};
  // "No write of the read's slot comes after the read, in the loop":
  // false, but the same with or without instances stated beside it.
  z3::expr later = model.executes(write, w) && model.before(read, r, write, w);
  std::vector<z3::expr> vars = model.loopVars(write, w);
  std::optional<std::vector<z3::expr>> next =
      model.shiftedIteration(write, read, r, 4);
  std::optional<std::vector<z3::expr>> same =
      model.shiftedIteration(write, read, r, 0);
  ASSERT_TRUE(next && same);
  z3::expr k = model.inductionVar(loop, r);
  EXPECT_TRUE(holds(prover, ctx.bool_val(true), (*next)[0] == k + 4));
  EXPECT_TRUE(holds(prover, ctx.bool_val(true), (*same)[0] == k));
  z3::expr plain = model.forAll(vars, !later);
  z3::expr stated = model.forAll(vars, !later,
                                 {*next, *same, {ctx.int_val(-7)}});
  EXPECT_TRUE(holds(prover, model.assumptions(), plain == stated));
  // An instance of the wrong arity is left out, not misapplied.
  EXPECT_TRUE(z3::eq(model.forAll(vars, !later, {{k, k}}), plain));
  // Ops outside every loop have no iteration to shift.
  Operation *outside = nullptr;
  kernel.walk([&](tile::ProgramIdOp p) { outside = p; });
  EXPECT_FALSE(model.shiftedIteration(outside, read, r, 1));
}

TEST_F(VerificationTest, UnknownIsNotAProof) {
  z3::context ctx;
  Prover prover(ctx, 100, "", "test");
  z3::expr a = ctx.int_const("a"), b = ctx.int_const("b"),
           c = ctx.int_const("c");
  Verdict v = prover.check(
      a > 0 && b > 0 && c > 0 && a * a * a + b * b * b == c * c * c, "fermat");
  EXPECT_NE(v.kind, Verdict::Unsat);
  EXPECT_EQ(prover.numQueries(), 1u);
}

/// The library call: a verdict per obligation, a structured counterexample
/// for each failure, and the diagnostics as usual.
TEST_F(VerificationTest, CheckKernelReportsVerdicts) {
  constexpr StringLiteral text = R"mlir(
    tile.kernel @k(%X: memref<?xf32> {tile.name = "X"}) grid(1) attributes {
        tile.launch = #tile.launch<sizes = [N = 256], grid = [N ceildiv 64],
                                   shapes = [X = [N]]>} {
      %c1 = arith.constant 1 : index
      %p = tile.program_id 0
      %t = tile.load %X[%p] padding(0.0 : f32) : memref<?xf32> -> tensor<64xf32>
      %b = tag.field %t["X", 0] : tensor<64xf32>
      tag.assert eq %b, %p, "this program's block" : index
      %q = arith.addi %p, %c1 : index
      tag.assert eq %b, %q, "the next block" : index
      tile.return
    })mlir";
  OwningOpRef<ModuleOp> m = parseSourceString<ModuleOp>(text, &context);
  auto k = *m->getOps<tile::KernelOp>().begin();
  std::vector<std::string> errors;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    errors.push_back(d.str());
    return success();
  });
  CheckOptions options;
  options.schedule = false;
  KernelVerdict verdict = checkKernel(k, options);
  EXPECT_FALSE(verdict.proved());
  EXPECT_FALSE(verdict.tagsProved);
  EXPECT_GT(verdict.queries, 0u);
  EXPECT_GT(verdict.resources, 0u);
  ASSERT_EQ(errors.size(), 1u);
  const ObligationVerdict *failure = nullptr, *proof = nullptr;
  for (const ObligationVerdict &o : verdict.obligations) {
    if (o.status == ObligationVerdict::Failed)
      failure = &o;
    if (o.status == ObligationVerdict::Proved &&
        o.what == "assertion \"this program's block\"")
      proof = &o;
  }
  ASSERT_TRUE(failure);
  ASSERT_TRUE(proof);
  // Each verdict says what its query cost.
  EXPECT_GT(proof->resources, 0u);
  EXPECT_GT(failure->resources, 0u);
  EXPECT_EQ(failure->checker, "tags");
  EXPECT_NE(failure->what.find("the next block"), std::string::npos);
  ASSERT_TRUE(failure->counterexample.has_value());
  // Minimal: the smallest size with a program (one element), program 0.
  std::map<std::string, int64_t> values(failure->counterexample->values.begin(),
                                        failure->counterexample->values.end());
  EXPECT_EQ(values["size.N"], 1);
  EXPECT_EQ(values["pid0"], 0);
  EXPECT_NE(failure->counterexample->replay.find("--kernel k --size N=1"),
            std::string::npos);
  llvm::json::Value json = toJSON(verdict);
  EXPECT_EQ(json.getAsObject()->getBoolean("proved"), false);
}

/// Whether the abstraction of `formula`, with its facts, is satisfiable
/// (`formula` must have a term to abstract).
z3::check_result checkAbstraction(const z3::expr &formula) {
  AbstractedFormula abstracted = abstractNonlinear(formula);
  EXPECT_TRUE(abstracted.changed);
  z3::solver solver(formula.ctx());
  solver.add(abstracted.facts && abstracted.formula);
  return solver.check();
}

// The abstraction of nonlinear terms must never lose a model: for concrete
// values of the inputs (negative, zero, one, large), the formula that pins
// x * y, x div y, x mod y and f(x) to their true values stays satisfiable
// once those terms are abstracted, with the abstraction's facts.
TEST(NonlinearAbstractionTest, KeepsEveryModel) {
  const int64_t values[] = {-1000003, -7, -2, -1, 0, 1, 2, 3, 7, 64, 1000003,
                            int64_t(1) << 40};
  for (int64_t a : values)
    for (int64_t b : values)
      // z: a second product with the factor y, to meet the facts relating
      // products that share a factor (z one above, one below, equal to x).
      for (int64_t c : {a - 1, a, a + 1, int64_t(5)}) {
        z3::context ctx;
        z3::expr x = ctx.int_const("x"), y = ctx.int_const("y"),
                 z = ctx.int_const("z");
        z3::sort intSort = ctx.int_sort();
        z3::func_decl f = ctx.function("f", intSort, intSort);
        z3::expr formula = x == ctx.int_val(a) && y == ctx.int_val(b) &&
                           z == ctx.int_val(c) &&
                           x * y == ctx.int_val(a) * ctx.int_val(b) &&
                           z * y == ctx.int_val(c) * ctx.int_val(b) &&
                           f(x) == f(ctx.int_val(a));
        if (b != 0) {
          // Euclidean, as Z3 defines div and mod.
          int64_t r = ((a % b) + (b < 0 ? -b : b)) % (b < 0 ? -b : b);
          int64_t q = (a - r) / b;
          formula = formula && z3::mod(x, y) == ctx.int_val(r) &&
                    x / y == ctx.int_val(q);
        }
        AbstractedFormula abstracted = abstractNonlinear(formula);
        EXPECT_TRUE(abstracted.changed);
        z3::solver solver(ctx);
        solver.add(abstracted.facts && abstracted.formula);
        EXPECT_EQ(solver.check(), z3::sat)
            << "x = " << a << ", y = " << b << ", z = " << c;
        // The inputs are the constants the abstracted terms are built from.
        for (const z3::expr &e : abstracted.inputs)
          EXPECT_TRUE(z3::eq(e, x) || z3::eq(e, y) || z3::eq(e, z))
              << e.to_string();
        // Refinement lemmas drawn from any model keep the true one.
        if (solver.check() == z3::sat) {
          solver.add(abstracted.refinement(solver.get_model()));
          EXPECT_EQ(solver.check(), z3::sat)
              << "refined: x = " << a << ", y = " << b << ", z = " << c;
        }
      }
}

// Products of quotients by numbers are bounded by the product of the
// dividends: the facts keep the true values of ((x + c) div k) *
// ((y + d) div l) and x * y, for negative, zero and large inputs.
TEST(NonlinearAbstractionTest, QuotientProductsKeepEveryModel) {
  const int64_t values[] = {-1000, -128, -1, 0, 1, 127, 128, 129, 1000003,
                            int64_t(1) << 40};
  for (int64_t a : values)
    for (int64_t b : values)
      for (auto [c, k] : {std::pair<int64_t, int64_t>{127, 128}, {0, 64},
                          {-5, 3}}) {
        z3::context ctx;
        z3::expr x = ctx.int_const("x"), y = ctx.int_const("y");
        auto floorDiv = [](int64_t n, int64_t d) {
          return n / d - (n % d != 0 && ((n < 0) != (d < 0)));
        };
        int64_t qa = floorDiv(a + c, k), qb = floorDiv(b + 1, 2);
        z3::expr formula =
            x == ctx.int_val(a) && y == ctx.int_val(b) &&
            x * y == ctx.int_val(a) * ctx.int_val(b) &&
            ((x + ctx.int_val(c)) / ctx.int_val(k)) * ((y + 1) / 2) ==
                ctx.int_val(qa) * ctx.int_val(qb);
        EXPECT_EQ(checkAbstraction(formula), z3::sat)
            << "x = " << a << ", y = " << b << ", c = " << c << ", k = " << k;
      }
}

// The tile count of an M x N output in 128 x 128 tiles is about M * N /
// 2^14: with M * N below 2^61 it stays below 2^48, which the abstraction
// proves without Z3's nonlinear arithmetic (a persistent kernel's steps
// 8 * i then cannot wrap).
TEST(NonlinearAbstractionTest, TileCountFollowsProductOfSizes) {
  z3::context ctx;
  z3::expr m = ctx.int_const("M"), n = ctx.int_const("N");
  z3::expr tiles = ((m + 127) / 128) * ((n + 127) / 128);
  z3::expr formula = m >= 1 && n >= 1 && m < ctx.int_val(int64_t(1) << 53) &&
                     n < ctx.int_val(int64_t(1) << 53) &&
                     m * n < ctx.int_val(int64_t(1) << 61) &&
                     tiles >= ctx.int_val(int64_t(1) << 48);
  EXPECT_EQ(checkAbstraction(formula), z3::unsat);
}

// Quotient and remainder by one divisor are tied together: equal quotients
// and remainders mean equal dividends (two programs that store block
// (t div n, t mod n) are the same tile t), which the abstraction proves
// without Z3's nonlinear arithmetic.
TEST(NonlinearAbstractionTest, RemainderFollowsQuotient) {
  z3::context ctx;
  z3::expr t = ctx.int_const("t"), u = ctx.int_const("u"),
           n = ctx.int_const("n");
  z3::expr same = n >= 1 && t / n == u / n && z3::mod(t, n) == z3::mod(u, n);
  EXPECT_EQ(checkAbstraction(same && t != u), z3::unsat);
}

// A candidate that gives a product a value its factors do not is refined
// away: "x * y = 12 with x = 3" forces y = 4 after one lemma.
TEST(NonlinearAbstractionTest, RefinementRulesOutWrongProducts) {
  z3::context ctx;
  z3::expr x = ctx.int_const("x"), y = ctx.int_const("y");
  z3::expr formula = x * y == 12 && x >= 3 && x <= 3 && y != 4;
  AbstractedFormula abstracted = abstractNonlinear(formula);
  ASSERT_TRUE(abstracted.changed);
  z3::solver solver(ctx);
  solver.add(abstracted.facts && abstracted.formula);
  ASSERT_EQ(solver.check(), z3::sat);
  solver.add(abstracted.refinement(solver.get_model()));
  EXPECT_EQ(solver.check(), z3::unsat);
}

// A model of the abstraction is no counterexample: "x * y = 7 with x and y
// in [2, 6]" is unsatisfiable, but with the product abstracted it is
// satisfiable; the prover answers for the exact formula (unsat), and a
// counterexample it reports satisfies the exact formula.
TEST(NonlinearAbstractionTest, ProverAnswersForTheExactFormula) {
  z3::context ctx;
  z3::expr x = ctx.int_const("x"), y = ctx.int_const("y");
  // 7 is prime: no factors in [2, 6]. Simplification alone cannot see it.
  z3::expr noFactors = x * y == 7 && x > 1 && y > 1 && x < 7 && y < 7;
  AbstractedFormula abstracted = abstractNonlinear(noFactors);
  ASSERT_TRUE(abstracted.changed);
  z3::solver solver(ctx);
  solver.add(abstracted.facts && abstracted.formula);
  EXPECT_EQ(solver.check(), z3::sat);
  Prover prover(ctx, 10000000, "", "");
  Verdict v = prover.check(noFactors, "a prime's factors");
  EXPECT_EQ(v.kind, Verdict::Unsat);
  // Decided by resources alone (nlsat, no wall-clock step): asked again,
  // the same verdict for the same resources.
  Verdict again = prover.check(noFactors, "a prime's factors");
  EXPECT_EQ(again.kind, v.kind);
  EXPECT_EQ(again.resources, v.resources);
  // A genuine counterexample comes back as a model of the exact formula.
  Verdict w = prover.check(x * y == ctx.int_val(12) && x > 3 && y > 1,
                           "a factorization");
  ASSERT_EQ(w.kind, Verdict::Sat);
  int64_t xv = 0, yv = 0;
  ASSERT_TRUE(w.model->eval(x, true).is_numeral_i64(xv));
  ASSERT_TRUE(w.model->eval(y, true).is_numeral_i64(yv));
  EXPECT_EQ(xv * yv, 12);
}

/// Loop bounds generalized: a claim about iterations that holds for any
/// bounds is proved with fresh constants for them; one that needs their
/// values falls back to the formula, and its counterexample is real.
TEST(GeneralizationTest, OnlyAProofCountsForGeneralizedBounds) {
  z3::context ctx;
  z3::expr pid = ctx.int_const("pid"), chunk = ctx.int_const("chunk"),
           n = ctx.int_const("n"), iv = ctx.int_const("iv");
  z3::expr lb = z3::ite(pid * chunk <= n, pid * chunk, n);
  z3::expr ub = z3::ite(lb + chunk <= n, lb + chunk, n);
  z3::expr domain = pid >= 0 && chunk >= 1 && n >= 0 && iv >= lb && iv < ub;
  std::vector<z3::expr> bounds{lb, ub};
  Prover prover(ctx, 10000000, "", "");
  // Holds for any bounds: the iteration offset is below the trip count.
  z3::expr offset = iv - lb < ub - lb && iv - lb >= 0;
  Verdict general = prover.check(domain && !offset, "offset", {}, bounds);
  EXPECT_EQ(general.kind, Verdict::Unsat);
  // ... for less than the formula itself costs (resources, deterministic).
  Verdict plain = prover.check(domain && !offset, "offset");
  EXPECT_EQ(plain.kind, Verdict::Unsat);
  EXPECT_LT(general.resources, plain.resources);
  // Needs the bounds' values (a chunk never starts past n); still proved.
  Verdict exact = prover.check(domain && !(lb <= n), "start", {}, bounds);
  EXPECT_EQ(exact.kind, Verdict::Unsat);
  // False: a counterexample of the formula itself, not of fresh bounds.
  Verdict wrong =
      prover.check(domain && !(iv < chunk), "first chunk", {pid}, bounds);
  ASSERT_EQ(wrong.kind, Verdict::Sat);
  int64_t p = 0, c = 0, v = 0, m = 0;
  ASSERT_TRUE(wrong.model->eval(pid, true).is_numeral_i64(p));
  ASSERT_TRUE(wrong.model->eval(chunk, true).is_numeral_i64(c));
  ASSERT_TRUE(wrong.model->eval(iv, true).is_numeral_i64(v));
  ASSERT_TRUE(wrong.model->eval(n, true).is_numeral_i64(m));
  int64_t start = std::min(p * c, m), stop = std::min(start + c, m);
  EXPECT_TRUE(start <= v && v < stop && v >= c);
}

/// A cached verdict is the verdict the query gets: a proof with its
/// resources, a counterexample with its (minimized) values; another limit
/// or other minimized terms are another query; a damaged entry is decided
/// again. Each query is asked as a run of the checker asks it: in a
/// context of its own (Z3 prints a formula's shared terms by what else the
/// context holds).
TEST(VerdictCacheTest, SameQuerySameVerdict) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("verdicts", dir));
  auto entries = [&] {
    unsigned n = 0;
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
         it.increment(ec))
      ++n;
    return n;
  };
  struct Answer {
    Verdict::Kind kind;
    uint64_t resources;
    int64_t x = -1, y = -1; // a counterexample's values
  };
  // "x > 2, y = 2x" proves y > 4 and does not prove y > 6.
  auto ask = [&](uint64_t limit, int bound, bool minimalInX = true) {
    z3::context ctx;
    z3::expr x = ctx.int_const("x"), y = ctx.int_const("y");
    Prover prover(ctx, limit, "", "");
    prover.setVerdictCache(std::string(dir));
    Verdict v = prover.check(x > 2 && y == 2 * x && !(y > bound), "test",
                             {minimalInX ? x : y});
    Answer a{v.kind, v.resources};
    if (v.kind == Verdict::Sat) {
      EXPECT_TRUE(v.model->eval(x, true).is_numeral_i64(a.x));
      EXPECT_TRUE(v.model->eval(y, true).is_numeral_i64(a.y));
    }
    return a;
  };
  Answer first = ask(20000, 4);
  ASSERT_EQ(first.kind, Verdict::Unsat);
  EXPECT_EQ(entries(), 1u);
  Answer again = ask(20000, 4);
  EXPECT_EQ(again.kind, Verdict::Unsat);
  EXPECT_EQ(again.resources, first.resources);
  EXPECT_EQ(entries(), 1u);
  ask(25000, 4); // another limit: another entry
  EXPECT_EQ(entries(), 2u);

  Answer sat = ask(20000, 6);
  ASSERT_EQ(sat.kind, Verdict::Sat);
  EXPECT_EQ(sat.x, 3); // minimal in x
  EXPECT_EQ(sat.y, 6);
  EXPECT_EQ(entries(), 3u);
  Answer cached = ask(20000, 6);
  ASSERT_EQ(cached.kind, Verdict::Sat);
  EXPECT_EQ(entries(), 3u);
  EXPECT_EQ(cached.resources, sat.resources);
  EXPECT_EQ(cached.x, 3);
  EXPECT_EQ(cached.y, 6);
  ask(20000, 6, /*minimalInX=*/false); // other minimized terms
  EXPECT_EQ(entries(), 4u);

  // Damaged entries are not verdicts: the queries are decided again.
  for (const char *damage : {"sat 12\nx\tInt", "sat 12\nx\tInt\tthree\n",
                             "sat 12\nx\tReal\t1\n", "proved 12\n"}) {
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
         it.increment(ec)) {
      llvm::raw_fd_ostream os(it->path(), ec);
      os << damage;
    }
    Answer redone = ask(20000, 4);
    EXPECT_EQ(redone.kind, Verdict::Unsat);
    EXPECT_EQ(redone.resources, first.resources);
    Answer again = ask(20000, 6);
    ASSERT_EQ(again.kind, Verdict::Sat);
    EXPECT_EQ(again.x, 3);
    EXPECT_EQ(again.y, 6);
  }
  llvm::sys::fs::remove_directories(dir);
}

} // namespace

// Values known not to be negative are read as unsigned without a case
// split: a loop's induction variable less the lower bound it counts up
// from is one; other differences are not.
TEST(NonNegativeTest, IterationOffsets) {
  MLIRContext context;
  DialectRegistry registry;
  registerAllDialects(registry);
  context.appendDialectRegistry(registry);
  constexpr StringLiteral text = R"mlir(
    tile.kernel @k(%X: memref<?xf32> {tile.name = "X"}) grid(1) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %p = tile.program_id 0
      %n = memref.dim %X, %c0 : memref<?xf32>
      %lb = arith.minui %p, %n : index
      scf.for %i = %lb to %n step %c1 {
        %offset = arith.subi %i, %lb {name = "offset"} : index
        %other = arith.subi %i, %n {name = "other"} : index
        %back = arith.subi %lb, %i {name = "back"} : index
      }
      tile.return
    })mlir";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  ASSERT_TRUE(module);
  auto kernel = *module->getOps<tile::KernelOp>().begin();
  z3::context ctx;
  SymbolicModel model(kernel, ctx);
  std::map<std::string, bool> seen;
  kernel.walk([&](arith::SubIOp sub) {
    auto name = sub->getAttrOfType<StringAttr>("name");
    seen[name.str()] = model.nonNegative(sub);
  });
  EXPECT_TRUE(seen.at("offset"));
  EXPECT_FALSE(seen.at("other"));
  EXPECT_FALSE(seen.at("back"));
}
