//===- VerifyTags.cpp - prove tag assertions with Z3 ----------------------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Dialect/Schedule/IR/ScheduleOps.h"
#include "TileTag/Dialect/Tag/IR/TagOps.h"
#include "TileTag/Dialect/Tile/IR/TileOps.h"
#include "Checkers.h"
#include "TileTag/Verification/Prover.h"
#include "TileTag/Verification/SymbolicModel.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/IntegerSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Path.h"


using namespace mlir;
using namespace mlir::tiletag;
using namespace mlir::tiletag::verify;

namespace {

/// One way a value may carry a tag: the fields, over existentially bound
/// variables (earlier iterations, the iteration of the write that reached a
/// read) that satisfy `when`.
struct TagFamily {
  std::string name;
  int self = -1; // >= 0: stands for the tags of loop-carried value #self
  std::vector<z3::expr> fields;
  std::vector<z3::expr> bound;
  z3::expr when;
  Operation *origin = nullptr; // what attached the tag
  Operation *writer = nullptr; // the write a memory read got it from
  std::vector<std::pair<std::string, z3::expr>> writerIteration;
  std::vector<z3::expr> writerSlot; // the slot it wrote, in its instance
};
using TagSet = std::vector<TagFamily>;

/// A ghost field value read by tag.field: a symbol and its definition.
struct Field {
  z3::expr symbol;
  z3::expr definition;
  tag::FieldOp op;
  TagSet families;
  unsigned order; // fields are numbered as the checker meets them
};

class TagChecker {
public:
  TagChecker(tile::KernelOp kernel, z3::context &ctx, Prover &prover)
      : ctx(ctx), model(kernel, ctx), prover(prover), main{"", {}} {}

  LogicalResult run() {
    findObservedTags();
    analyzeBlock(model.getKernel().getBody().front());
    return failed ? failure() : success();
  }

  unsigned assertions = 0, obligations = 0;

private:
  //===--------------------------------------------------------------------===//
  // Tag sets
  //===--------------------------------------------------------------------===//

  TagSet &tagsOf(Value v) { return tags[v]; }

  /// Marks the values whose tags some tag.field or tag.assert_carries can
  /// observe, through computations, loops, branches, regions and shared
  /// memory. The tags of data read back from shared memory are the union,
  /// over every write to the buffer, of the tags of what it wrote, under
  /// "last write" conditions: a reduction tree through one buffer makes
  /// that union grow with every step, so it is built only where observed.
  void findObservedTags() {
    SmallVector<Value> work;
    auto need = [&](Value v) {
      if (llvm::isa<TensorType>(v.getType()) && observed.insert(v).second)
        work.push_back(v);
    };
    model.getKernel().walk([&](Operation *op) {
      if (auto field = llvm::dyn_cast<tag::FieldOp>(op))
        need(field.getValue());
      else if (auto carries = llvm::dyn_cast<tag::AssertCarriesOp>(op))
        need(carries.getValue());
    });
    auto yielded = [&](Region &region, unsigned i) {
      if (!region.empty())
        need(region.front().getTerminator()->getOperand(i));
    };
    while (!work.empty()) {
      Value v = work.pop_back_val();
      if (auto arg = llvm::dyn_cast<BlockArgument>(v)) {
        if (auto loop =
                llvm::dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
            loop && arg.getArgNumber() > 0) {
          need(loop.getInitArgs()[arg.getArgNumber() - 1]);
          yielded(loop.getRegion(), arg.getArgNumber() - 1);
        }
        continue;
      }
      Operation *def = v.getDefiningOp();
      unsigned i = llvm::cast<OpResult>(v).getResultNumber();
      if (auto read = llvm::dyn_cast<tile::ReadOp>(def)) {
        for (Operation *w : model.bufferWriters(read.getBuffer()))
          if (auto write = llvm::dyn_cast<tile::WriteOp>(w))
            need(write.getValue());
      } else if (auto loop = llvm::dyn_cast<scf::ForOp>(def)) {
        need(loop.getInitArgs()[i]);
        yielded(loop.getRegion(), i);
      } else if (def->getNumRegions() > 0 &&
                 llvm::isa<scf::IfOp, schedule::RoleOp, schedule::AsyncOp>(
                     def)) {
        for (Region &region : def->getRegions())
          yielded(region, i);
      } else {
        for (Value operand : def->getOperands())
          need(operand);
      }
    }
  }

  TagFamily plain(StringRef name, std::vector<z3::expr> fields,
                  Operation *origin) {
    TagFamily t{name.str(),
                -1,
                std::move(fields),
                {},
                ctx.bool_val(true),
                origin,
                nullptr,
                {},
                {}};
    return t;
  }

  static void append(TagSet &into, const TagSet &from) {
    into.insert(into.end(), from.begin(), from.end());
  }

  /// `t` with `from` replaced by `to` in its fields and condition.
  TagFamily substitute(const TagFamily &t, const z3::expr &from,
                       const z3::expr &to) {
    TagFamily r = t;
    z3::expr_vector src(ctx), dst(ctx);
    src.push_back(from);
    dst.push_back(to);
    for (z3::expr &f : r.fields)
      f = f.substitute(src, dst);
    r.when = r.when.substitute(src, dst);
    for (auto &[name, e] : r.writerIteration)
      e = e.substitute(src, dst);
    for (z3::expr &e : r.writerSlot)
      e = e.substitute(src, dst);
    return r;
  }

  void addLabels(Operation *op) {
    auto labels =
        op->getAttrOfType<ArrayAttr>(tag::TagDialect::kLabelsAttrName);
    if (!labels || op->getNumResults() == 0)
      return;
    std::vector<z3::expr> dims;
    for (Value operand : op->getOperands())
      if (operand.getType().isIndex())
        dims.push_back(model.term(operand, main));
    for (auto label : labels.getAsRange<tag::LabelAttr>()) {
      std::vector<z3::expr> fields;
      for (AffineExpr e : label.getFields().getResults())
        fields.push_back(model.affine(e, dims));
      tagsOf(op->getResult(0)).push_back(plain(label.getName(), fields, op));
    }
  }

  //===--------------------------------------------------------------------===//
  // Queries and reports
  //===--------------------------------------------------------------------===//

  z3::expr context(Operation *op) {
    return model.executes(op, main) && model.assumptions();
  }

  /// Proves `claim` where `op` executes; reports a failure at `op`.
  /// `notes` adds what only the caller knows (expected vs actual tags)
  /// before the counterexample.
  bool prove(
      Operation *op, const z3::expr &facts, const z3::expr &claim,
      StringRef what, ArrayRef<Field *> fieldsUsed = {},
      function_ref<void(InFlightDiagnostic &, const z3::model &)> notes = {}) {
    if (!discharge)
      return true;
    std::pair<Operation *, Instance *> at[] = {{op, &main}};
    Verdict v = prover.check(facts && !claim, what, model.minimalOrder(at));
    if (v.kind == Verdict::Unsat) {
      prover.recordProof(op, what);
      return true;
    }
    failed = true;
    if (v.kind == Verdict::Unknown) {
      mlir::emitError(op->getLoc())
          << "could not prove " << what << ": Z3 answered unknown (" << v.reason
          << "); raise rlimit or simplify the index "
          << "arithmetic (problem sizes must stay symbolic, tile "
          << "sizes and stages constant)";
      return false;
    }
    InFlightDiagnostic diag = mlir::emitError(op->getLoc())
                              << what << " does not hold";
    if (notes)
      notes(diag, *v.model);
    report(diag, op, *v.model, fieldsUsed);
    return false;
  }

  void report(InFlightDiagnostic &diag, Operation *op, const z3::model &m,
              ArrayRef<Field *> fieldsUsed) {
    std::pair<Operation *, Instance *> at[] = {{op, &main}};
    prover.setCounterexample(model.counterexample(m, at));
    diag.attachNote(op->getLoc()) << model.describe(m, op, &main);
    for (Field *f : fieldsUsed) {
      std::string ftext;
      llvm::raw_string_ostream fs(ftext);
      fs << "field " << f->op.getIndexAttr().getInt() << " of the \""
         << f->op.getName() << "\" tag read here is "
         << evalString(m, f->symbol);
      int64_t index = f->op.getIndexAttr().getInt();
      for (const TagFamily &t : f->families) {
        if (index >= static_cast<int64_t>(t.fields.size()) ||
            !m.eval(f->symbol == t.fields[index], true).is_true())
          continue;
        fs << ": the value carries " << describeTag(t, m);
        break;
      }
      diag.attachNote(f->op.getLoc()) << ftext;
    }
    diag.attachNote() << "replay on the CPU: " << model.replayCommand(m);
  }

  /// "B(0, 10), written by the tile.copy at line 56 into slot 2 when
  /// iv0@line38 = 10", with the values of `m`.
  std::string describeTag(const TagFamily &t, const z3::model &m) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << t.name << "(";
    llvm::interleaveComma(t.fields, os,
                          [&](const z3::expr &e) { os << evalString(m, e); });
    os << ")";
    if (t.writer) {
      os << ", written by the " << t.writer->getName() << " at "
         << lineOf(t.writer);
      if (!t.writerSlot.empty()) {
        os << " into slot ";
        llvm::interleaveComma(t.writerSlot, os, [&](const z3::expr &e) {
          os << evalString(m, e);
        });
      }
      if (!t.writerIteration.empty()) {
        os << " when";
        for (auto &[name, e] : t.writerIteration)
          os << " " << name << " = " << evalString(m, e);
      }
    } else if (t.origin) {
      os << " from the " << t.origin->getName() << " at " << lineOf(t.origin);
    }
    return text;
  }

  /// What `families` hold in the execution `m` describes: re-solves with the
  /// shared symbols and loop variables fixed to their values in `m`, so that
  /// variables bound under a quantifier in `m` get values too.
  std::vector<std::string> actualTags(Operation *op, const TagSet &families,
                                      const z3::model &m) {
    z3::expr fixed = context(op);
    for (const Symbol &sym : model.symbols())
      fixed = fixed && sym.expr == m.eval(sym.expr, true);
    for (scf::ForOp loop : model.loops(op)) {
      z3::expr iv = model.inductionVar(loop, main);
      fixed = fixed && iv == m.eval(iv, true);
    }
    std::vector<std::string> out;
    for (const TagFamily &t : families) {
      Verdict v = prover.check(fixed && t.when,
                               "a witness of the tag the value carries");
      if (v.kind == Verdict::Sat)
        out.push_back(describeTag(t, *v.model));
    }
    return out;
  }

  /// The fields a claim reads (by their symbols), with their definitions.
  void fieldsIn(const z3::expr &e, std::vector<Field *> &out) {
    forEachConstant(
        e,
        [&](const z3::expr &c) {
          auto it = fields.find(c.decl().name().str());
          if (it != fields.end() && !llvm::is_contained(out, &it->second))
            out.push_back(&it->second);
        },
        /*intoQuantifiers=*/true);
    // In the order the fields are read in the kernel.
    llvm::sort(out, [](Field *a, Field *b) { return a->order < b->order; });
  }

  void checkAssertion(Operation *op, const z3::expr &claim, StringRef what) {
    if (!discharge)
      return;
    std::vector<Field *> used;
    fieldsIn(claim, used);
    z3::expr facts = context(op);
    for (Field *f : used)
      facts = facts && f->definition;
    if (used.size() > 1) {
      Verdict v =
          prover.check(facts, "the tags this assertion reads exist together");
      if (v.kind == Verdict::Unsat) {
        mlir::emitError(op->getLoc())
            << what << " reads tag fields that never exist together "
            << "where it executes, so it states nothing";
        failed = true;
        return;
      }
    }
    if (prove(op, facts, claim, what, used))
      ++assertions;
  }

  //===--------------------------------------------------------------------===//
  // Memory
  //===--------------------------------------------------------------------===//

  z3::expr sameSlot(ValueRange a, Instance &ia, ValueRange b, Instance &ib) {
    z3::expr eq = ctx.bool_val(true);
    for (auto [x, y] : llvm::zip(a, b))
      eq = eq && model.term(x, ia) == model.term(y, ib);
    return eq;
  }

  /// The tags of data read from slot `slots` of `buffer` by `reader`: those
  /// of the last write to that slot before the read, in sequential order
  /// (none unless `wanted`; the read is checked either way).
  TagSet memoryTags(Operation *reader, Value buffer, ValueRange slots,
                    bool wanted) {
    SmallVector<Operation *> writers = model.bufferWriters(buffer);
    TagSet result;
    z3::expr noWriter = ctx.bool_val(true);
    for (Operation *w : writers) {
      Instance iw{"@w" + std::to_string(instanceCounter++), {}};
      z3::expr happened = model.executes(w, iw) &&
                          sameSlot(*slotsWritten(w, buffer), iw, slots, main) &&
                          model.before(w, iw, reader, main);
      std::vector<z3::expr> wVars = model.loopVars(w, iw);
      noWriter = noWriter && model.forAll(wVars, !happened);
      // No other write to the slot comes between this one and the read.
      if (!wanted)
        continue;
      z3::expr last = model.lastWrite(w, iw, writers, reader, slots, main);
      // The data the write stored.
      TagSet data;
      if (auto copy = llvm::dyn_cast<tile::CopyOp>(w)) {
        if (auto arg = llvm::dyn_cast<BlockArgument>(copy.getSource());
            arg &&
            arg.getOwner()->getParentOp() == model.getKernel().getOperation()) {
          std::vector<z3::expr> fields;
          for (Value i : copy.getSourceIndices())
            fields.push_back(model.term(i, iw));
          data.push_back(
              plain(model.getKernel().getOperandName(arg.getArgNumber()),
                    fields, copy));
        }
      } else if (auto write = llvm::dyn_cast<tile::WriteOp>(w)) {
        auto it = tags.find(write.getValue());
        if (it != tags.end()) {
          for (TagFamily t : it->second) {
            for (scf::ForOp loop : model.loops(w))
              t = substitute(t, model.inductionVar(loop, main),
                             model.inductionVar(loop, iw));
            data.push_back(t);
          }
        }
      }
      std::vector<std::pair<std::string, z3::expr>> iteration;
      for (scf::ForOp loop : model.loops(w))
        iteration.push_back(
            {model.loopName(loop), model.inductionVar(loop, iw)});
      std::vector<z3::expr> slotTerms;
      ValueRange written = *slotsWritten(w, buffer);
      for (Value v : written)
        slotTerms.push_back(model.term(v, iw));
      for (TagFamily &t : data) {
        t.bound.insert(t.bound.end(), wVars.begin(), wVars.end());
        t.when = t.when && last;
        t.writer = w;
        t.writerIteration = iteration;
        t.writerSlot = slotTerms;
        result.push_back(t);
      }
    }
    // Every read must find an earlier write: otherwise it reads garbage.
    if (discharge) {
      std::pair<Operation *, Instance *> at[] = {{reader, &main}};
      Verdict v =
          prover.check(context(reader) && noWriter,
                       "an earlier write filled the slot this read reads",
                       model.minimalOrder(at));
      if (v.kind == Verdict::Sat) {
        failed = true;
        InFlightDiagnostic diag =
            mlir::emitError(reader->getLoc())
            << "reads a shared-buffer slot that no earlier "
               "write filled (uninitialized data)";
        report(diag, reader, *v.model, {});
      } else if (v.kind == Verdict::Unknown) {
        failed = true;
        mlir::emitError(reader->getLoc())
            << "could not prove that an earlier write filled the "
               "slot this read reads: Z3 answered unknown ("
            << v.reason << ")";
      } else {
        ++obligations;
      }
    }
    return result;
  }

  /// Unchecked loads stay in range; bounds stay inside the memref.
  void checkBlockAccess(Operation *op, Value memref, ShapedType tile,
                        ValueRange indices, ValueRange offsets,
                        ValueRange bounds, bool unchecked) {
    if (!discharge)
      return;
    auto type = llvm::cast<MemRefType>(memref.getType());
    int64_t rank = type.getRank();
    SmallVector<int64_t> block = tile::blockShape(tile.getShape(), rank);
    z3::expr inRange = ctx.bool_val(true), boundsInside = ctx.bool_val(true);
    for (int64_t d = 0; d < rank; ++d) {
      z3::expr dim = model.dimension(memref, d);
      z3::expr bound = bounds.empty() ? dim : model.term(bounds[d], main);
      z3::expr origin = model.term(indices[d], main) *
                        ctx.int_val(static_cast<int64_t>(block[d]));
      if (!offsets.empty())
        origin = origin + model.term(offsets[d], main);
      inRange = inRange && origin >= 0 &&
                origin + ctx.int_val(static_cast<int64_t>(block[d])) <= bound;
      boundsInside = boundsInside && bound <= dim;
    }
    z3::expr facts = context(op);
    if (!bounds.empty() &&
        prove(op, facts, boundsInside, "'bounds' stay inside the memref"))
      ++obligations;
    if (unchecked && prove(op, facts, inRange,
                           "the unchecked access (no padding) stays in range"))
      ++obligations;
  }

  void checkSlots(Operation *op, Value buffer, ValueRange slots) {
    if (!discharge)
      return;
    auto type = llvm::cast<MemRefType>(buffer.getType());
    z3::expr ok = ctx.bool_val(true);
    for (auto [d, s] : llvm::enumerate(slots)) {
      z3::expr t = model.term(s, main);
      ok = ok && t >= 0 &&
           t < ctx.int_val(static_cast<int64_t>(type.getDimSize(d)));
    }
    if (prove(op, context(op), ok, "the slot index stays inside the buffer"))
      ++obligations;
  }

  //===--------------------------------------------------------------------===//
  // Propagation
  //===--------------------------------------------------------------------===//

  void analyzeBlock(Block &block) {
    for (Operation &op : block)
      analyzeOp(&op);
  }

  TagSet yieldTags(Region &region, unsigned i) {
    if (region.empty())
      return {};
    Operation *term = region.front().getTerminator();
    if (i >= term->getNumOperands())
      return {};
    return tagsOf(term->getOperand(i));
  }

  void analyzeOp(Operation *op) {
    llvm::TypeSwitch<Operation *>(op)
        .Case<tile::LoadOp>([&](tile::LoadOp load) {
          if (auto arg = llvm::dyn_cast<BlockArgument>(load.getSource());
              arg && arg.getOwner()->getParentOp() ==
                         model.getKernel().getOperation()) {
            std::vector<z3::expr> fields;
            for (Value i : load.getIndices())
              fields.push_back(model.term(i, main));
            tagsOf(load).push_back(
                plain(model.getKernel().getOperandName(arg.getArgNumber()),
                      fields, load));
          }
          checkBlockAccess(load, load.getSource(), load.getType(),
                           load.getIndices(), load.getOffsets(),
                           load.getBounds(), !load.getPaddingAttr());
        })
        .Case<tile::StoreOp>([&](tile::StoreOp store) {
          checkBlockAccess(store, store.getDest(), store.getValue().getType(),
                           store.getIndices(), store.getOffsets(),
                           store.getBounds(),
                           /*unchecked=*/false);
        })
        .Case<tile::CopyOp>([&](tile::CopyOp copy) {
          auto tile = RankedTensorType::get(
              copy.getTileShape(),
              llvm::cast<MemRefType>(copy.getShared().getType())
                  .getElementType());
          checkBlockAccess(copy, copy.getGlobal(), tile,
                           copy.getBlockIndices(), copy.getOffsets(),
                           copy.getBounds(),
                           copy.isGlobalToShared() && !copy.getPaddingAttr());
          checkSlots(copy, copy.getShared(), copy.getSlotIndices());
        })
        .Case<tile::ReadOp>([&](tile::ReadOp read) {
          checkSlots(read, read.getBuffer(), read.getIndices());
          TagSet set = memoryTags(read, read.getBuffer(), read.getIndices(),
                                  observed.contains(read.getResult()));
          tagsOf(read) = std::move(set);
        })
        .Case<tile::WriteOp>([&](tile::WriteOp write) {
          checkSlots(write, write.getBuffer(), write.getIndices());
        })
        .Case<tag::AttachOp>([&](tag::AttachOp attach) {
          TagSet set = tagsOf(attach.getValue());
          std::vector<z3::expr> fields;
          for (Value f : attach.getFields())
            fields.push_back(model.term(f, main));
          set.push_back(plain(attach.getName(), fields, attach));
          tagsOf(attach) = set;
        })
        .Case<tag::FieldOp>([&](tag::FieldOp field) { defineField(field); })
        .Case<tag::AssertOp>([&](tag::AssertOp a) {
          z3::expr l = model.term(a.getLhs(), main),
                   r = model.term(a.getRhs(), main);
          z3::expr claim = ctx.bool_val(true);
          switch (a.getPredicate()) {
          case tag::Predicate::eq:
            claim = l == r;
            break;
          case tag::Predicate::ne:
            claim = l != r;
            break;
          case tag::Predicate::lt:
            claim = l < r;
            break;
          case tag::Predicate::le:
            claim = l <= r;
            break;
          case tag::Predicate::gt:
            claim = l > r;
            break;
          case tag::Predicate::ge:
            claim = l >= r;
            break;
          }
          checkAssertion(a, claim, describe(a.getMessage()));
        })
        .Case<tag::AssertRangeOp>([&](tag::AssertRangeOp a) {
          z3::expr v = model.term(a.getValue(), main);
          checkAssertion(a,
                         model.term(a.getLower(), main) <= v &&
                             v < model.term(a.getUpper(), main),
                         describe(a.getMessage()));
        })
        .Case<tag::AssertAffineOp>([&](tag::AssertAffineOp a) {
          IntegerSet set = a.getCondition();
          std::vector<z3::expr> dims, syms;
          for (auto [i, v] : llvm::enumerate(a.getOperands()))
            (i < set.getNumDims() ? dims : syms).push_back(model.term(v, main));
          z3::expr claim = ctx.bool_val(true);
          for (unsigned c = 0; c < set.getNumConstraints(); ++c) {
            z3::expr e = model.affine(set.getConstraint(c), dims, syms);
            claim = claim && (set.isEq(c) ? e == 0 : e >= 0);
          }
          checkAssertion(a, claim, describe(a.getMessage()));
        })
        .Case<tag::AssertCarriesOp>(
            [&](tag::AssertCarriesOp a) { checkCarries(a); })
        .Case<scf::ForOp>([&](scf::ForOp loop) { analyzeLoop(loop); })
        .Case<scf::IfOp>([&](scf::IfOp branch) {
          analyzeBlock(branch.getThenRegion().front());
          if (!branch.getElseRegion().empty())
            analyzeBlock(branch.getElseRegion().front());
          for (auto [i, r] : llvm::enumerate(branch.getResults())) {
            TagSet set = yieldTags(branch.getThenRegion(), i);
            append(set, yieldTags(branch.getElseRegion(), i));
            tagsOf(r) = set;
          }
        })
        .Case<schedule::RoleOp, schedule::AsyncOp>([&](Operation *o) {
          analyzeBlock(o->getRegion(0).front());
          for (auto [i, r] : llvm::enumerate(o->getResults()))
            tagsOf(r) = yieldTags(o->getRegion(0), i);
        })
        .Default([&](Operation *o) {
          // Computations: results carry the tags of all operands.
          for (Region &region : o->getRegions())
            for (Block &b : region)
              analyzeBlock(b);
          TagSet set;
          for (Value operand : o->getOperands()) {
            auto it = tags.find(operand);
            if (it != tags.end())
              append(set, it->second);
          }
          for (Value r : o->getResults())
            if (llvm::isa<ShapedType>(r.getType()) || !set.empty())
              tagsOf(r) = set;
        });
    addLabels(op);
  }

  static std::string describe(std::optional<StringRef> message) {
    std::string text = "assertion";
    if (message)
      text += " \"" + message->str() + "\"";
    return text;
  }

  void defineField(tag::FieldOp field) {
    TagSet families;
    for (const TagFamily &t : tagsOf(field.getValue()))
      if (t.name == field.getName() && t.self < 0)
        families.push_back(t);
    z3::expr symbol =
        ctx.int_const(("field#" + std::to_string(fieldCounter++)).c_str());
    z3::expr definition = ctx.bool_val(false);
    int64_t index = field.getIndexAttr().getInt();
    bool arity = true;
    for (const TagFamily &t : families) {
      if (index >= static_cast<int64_t>(t.fields.size())) {
        arity = false;
        continue;
      }
      // Bound variables stay free constants: the definition lives in
      // existential queries, where that is their meaning.
      definition = definition || (t.when && symbol == t.fields[index]);
    }
    std::string key = symbol.decl().name().str();
    fields.emplace(key, Field{symbol, definition, field, families,
                              static_cast<unsigned>(fields.size())});
    main.memo.erase(field.getResult().getAsOpaquePointer());
    main.memo.emplace(field.getResult().getAsOpaquePointer(), symbol);
    if (!discharge)
      return;
    if (families.empty() || !arity) {
      failed = true;
      InFlightDiagnostic diag = mlir::emitError(field.getLoc());
      if (families.empty())
        diag << "the value carries no \"" << field.getName() << "\" tag here";
      else
        diag << "the \"" << field.getName() << "\" tag has fewer than "
             << index + 1 << " fields";
      std::string names;
      for (const TagFamily &t : tagsOf(field.getValue()))
        if (t.self < 0 && !llvm::StringRef(names).contains(t.name))
          names += (names.empty() ? "" : ", ") + t.name;
      diag.attachNote() << "it carries: "
                        << (names.empty() ? "no tags" : names);
      return;
    }
    Verdict v =
        prover.check(context(field) && definition,
                     "the value carries the tag where the field is read");
    if (v.kind == Verdict::Unsat) {
      failed = true;
      mlir::emitError(field.getLoc())
          << "the value never carries a \"" << field.getName()
          << "\" tag where this field is read";
    } else if (v.kind == Verdict::Unknown) {
      failed = true;
      mlir::emitError(field.getLoc())
          << "could not decide whether the value carries a \""
          << field.getName() << "\" tag here: " << v.reason;
    }
  }

  void checkCarries(tag::AssertCarriesOp a) {
    if (!discharge)
      return;
    std::vector<z3::expr> wanted;
    for (Value f : a.getFields())
      wanted.push_back(model.term(f, main));
    // Negation: no family has a member with these fields here.
    z3::expr none = ctx.bool_val(true);
    bool anyName = false;
    for (const TagFamily &t : tagsOf(a.getValue())) {
      if (t.self >= 0 || t.name != a.getName())
        continue;
      anyName = true;
      if (t.fields.size() != wanted.size())
        continue;
      z3::expr match = t.when;
      for (auto [x, y] : llvm::zip(t.fields, wanted))
        match = match && x == y;
      none = none && model.forAll(t.bound, !match);
    }
    std::string what = describe(a.getMessage());
    if (!anyName) {
      failed = true;
      mlir::emitError(a.getLoc()) << what << " fails: the value carries no \""
                                  << a.getName() << "\" tag at all";
      return;
    }
    auto notes = [&](InFlightDiagnostic &diag, const z3::model &m) {
      std::string expected;
      llvm::raw_string_ostream es(expected);
      es << "expected " << a.getName() << "(";
      llvm::interleaveComma(wanted, es,
                            [&](const z3::expr &e) { es << evalString(m, e); });
      es << ")";
      diag.attachNote(a.getLoc()) << expected;
      TagSet named;
      for (const TagFamily &t : tagsOf(a.getValue()))
        if (t.self < 0 && t.name == a.getName())
          named.push_back(t);
      for (const std::string &actual : actualTags(a, named, m))
        diag.attachNote(a.getLoc()) << "but the value carries " << actual;
    };
    if (prove(a, context(a), !none, what, {}, notes))
      ++assertions;
  }

  //===--------------------------------------------------------------------===//
  // Loops
  //===--------------------------------------------------------------------===//

  static bool hasSelf(const TagSet &set) {
    return llvm::any_of(set, [](const TagFamily &t) { return t.self >= 0; });
  }

  /// The tags of `own` for every iteration k' with lb <= k' < end.
  TagSet overIterations(const TagSet &own, const z3::expr &iv,
                        const z3::expr &lb, const z3::expr &end,
                        const z3::expr &step, bool unitStep) {
    TagSet out;
    for (const TagFamily &t : own) {
      if (t.self >= 0)
        continue;
      z3::expr k = model.fresh("iteration");
      TagFamily f = substitute(t, iv, k);
      f.bound.push_back(k);
      f.when = f.when && k >= lb && k < end;
      if (!unitStep)
        f.when = f.when && z3::mod(k - lb, step) == 0;
      out.push_back(f);
    }
    return out;
  }

  /// Whether the two tag sets are equal, family by family in order (only
  /// for families without bound variables), wherever `facts` hold.
  bool equalSets(const TagSet &a, const TagSet &b, const z3::expr &facts) {
    if (a.size() != b.size())
      return false;
    z3::expr same = ctx.bool_val(true);
    for (auto [x, y] : llvm::zip(a, b)) {
      if (x.name != y.name || x.self >= 0 || y.self >= 0 || !x.bound.empty() ||
          !y.bound.empty() || x.fields.size() != y.fields.size())
        return false;
      same = same && x.when == y.when;
      for (auto [f, g] : llvm::zip(x.fields, y.fields))
        same = same && f == g;
    }
    return prover.check(facts && !same, "loop invariant: base case").kind ==
           Verdict::Unsat;
  }

  void analyzeLoop(scf::ForOp loop) {
    Block *body = loop.getBody();
    unsigned n = loop.getNumRegionIterArgs();
    std::vector<TagSet> inits(n);
    for (unsigned j = 0; j < n; ++j)
      inits[j] = tagsOf(loop.getInitArgs()[j]);

    // Pass 1: what the body yields, with placeholders for the carried tags.
    bool saved = discharge;
    discharge = false;
    for (unsigned j = 0; j < n; ++j) {
      TagFamily self{"",
                     static_cast<int>(j),
                     {},
                     {},
                     ctx.bool_val(true),
                     nullptr,
                     nullptr,
                     {},
                     {}};
      tagsOf(loop.getRegionIterArgs()[j]) = {self};
    }
    analyzeBlock(*body);
    std::vector<TagSet> yields(n);
    for (unsigned j = 0; j < n; ++j)
      yields[j] = yieldTags(loop.getRegion(), j);
    discharge = saved;

    z3::expr iv = model.inductionVar(loop, main);
    z3::expr lb = model.term(loop.getLowerBound(), main);
    z3::expr ub = model.term(loop.getUpperBound(), main);
    z3::expr step = model.term(loop.getStep(), main);
    std::optional<int64_t> constStep = getConstantIntValue(loop.getStep());
    bool unitStep = constStep && *constStep == 1;
    z3::expr runs =
        model.executes(loop, main) && model.assumptions() && lb < ub;

    // Invariants: the yield of the previous iteration when that matches the
    // init (rotated or prefetched values), else the union of everything the
    // loop has carried so far.
    std::vector<TagSet> invariant(n);
    std::vector<bool> exact(n, false);
    auto tryExact = [&](unsigned j, const TagSet &previous) {
      // `previous`: the tags the value has one iteration earlier, as a
      // function of iv. Valid if it gives the init at the first iteration.
      TagSet atStart;
      for (const TagFamily &t : previous)
        atStart.push_back(substitute(t, iv, lb));
      if (!equalSets(inits[j], atStart, runs))
        return false;
      invariant[j] = previous;
      exact[j] = true;
      return true;
    };
    auto previousOf = [&](const TagSet &set) {
      TagSet out;
      for (const TagFamily &t : set)
        out.push_back(substitute(t, iv, iv - step));
      return out;
    };
    for (unsigned j = 0; j < n; ++j)
      if (!hasSelf(yields[j]))
        tryExact(j, previousOf(yields[j]));
    // Rotations: a value that takes over another carried value (a1 -> a0 in
    // a prefetching pipeline) has, one iteration later, that value's tags.
    for (bool changed = true; changed;) {
      changed = false;
      for (unsigned j = 0; j < n; ++j) {
        if (exact[j] || yields[j].size() != 1 || yields[j][0].self < 0)
          continue;
        unsigned from = yields[j][0].self;
        if (from != j && exact[from] &&
            tryExact(j, previousOf(invariant[from])))
          changed = true;
      }
    }
    // Everything value #j may hold after the iterations [lb, end): its init,
    // what the body contributed, and what the carried values it takes over
    // held.
    auto carriedUpTo = [&](unsigned j, const z3::expr &end) {
      TagSet set = inits[j];
      append(set, overIterations(yields[j], iv, lb, end, step, unitStep));
      for (const TagFamily &t : yields[j])
        if (t.self >= 0 && t.self != static_cast<int>(j)) {
          append(set, inits[t.self]);
          append(set,
                 overIterations(yields[t.self], iv, lb, end, step, unitStep));
        }
      return set;
    };
    for (unsigned j = 0; j < n; ++j)
      if (!exact[j])
        invariant[j] = carriedUpTo(j, iv);

    // Pass 2: the body with the invariants, discharging its assertions.
    for (unsigned j = 0; j < n; ++j)
      tagsOf(loop.getRegionIterArgs()[j]) = invariant[j];
    analyzeBlock(*body);

    // After the loop.
    z3::expr last = lb + ((ub - lb - 1) / step) * step;
    for (unsigned j = 0; j < n; ++j) {
      TagSet out;
      if (exact[j]) {
        for (TagFamily t : inits[j]) {
          t.when = t.when && ub <= lb;
          out.push_back(t);
        }
        for (const TagFamily &t : yieldTags(loop.getRegion(), j)) {
          TagFamily f = substitute(t, iv, last);
          f.when = f.when && lb < ub;
          out.push_back(f);
        }
      } else {
        out = carriedUpTo(j, ub);
      }
      tagsOf(loop.getResult(j)) = out;
    }
  }

  z3::context &ctx;
  SymbolicModel model;
  Prover &prover;
  Instance main;
  DenseMap<Value, TagSet> tags;
  /// Values whose tags are observed (findObservedTags).
  llvm::DenseSet<Value> observed;
  std::map<std::string, Field> fields;
  bool discharge = true;
  bool failed = false;
  unsigned instanceCounter = 0, fieldCounter = 0;
};

} // namespace

CheckerResult mlir::tiletag::verify::checkTags(tile::KernelOp kernel,
                                               z3::context &ctx,
                                               Prover &prover) {
  TagChecker checker(kernel, ctx, prover);
  bool proved = succeeded(checker.run());
  return {proved, std::to_string(checker.assertions) + " assertions and " +
                      std::to_string(checker.obligations) + " obligations"};
}
