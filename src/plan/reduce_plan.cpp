#include "plan/reduce_plan.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "core/fail.hpp"
#include "lang/diagnostic.hpp"

namespace cujit::plan {

namespace {

bool is_reduction(const Expr& e) { return e.kind == Expr::Call && e.builtin && e.builtin->is_reduction(); }

std::string dims_text(int ndim) {
  if (ndim == 0) return "it has no axes; drop axis=";
  if (ndim == 1) return "its one axis is 0 (or -1)";
  return "its axes are 0.." + std::to_string(ndim - 1) + " (or -" + std::to_string(ndim) + "..-1)";
}

// What an expression reads beyond its own operands: reductions' results and locals.
struct Reads {
  std::set<int> steps, locals;
};

class Planner {
 public:
  Planner(const Program& p, const std::vector<Shape>& in) : p_(p), in_(in) {
    plan_.local_shapes.resize(p.locals.size());
    plan_.output_shapes.resize(p.outputs.size());
    local_reads_.resize(p.locals.size());
  }

  ReducePlan run() {
    if (in_.size() != p_.inputs.size())
      fail(ErrorCode::Usage, "the program has {} parameters but {} inputs were given", p_.inputs.size(), in_.size());
    std::vector<bool> assigned(p_.outputs.size(), false);
    std::vector<Reads> stmt_reads(p_.ast.stmts.size());
    for (std::size_t k = 0; k < p_.ast.stmts.size(); ++k) {
      const Stmt& s = p_.ast.stmts[k];
      Shape sh = shape_of(*s.expr, false);
      collect(*s.expr, stmt_reads[k]);
      const auto slot = static_cast<std::size_t>(s.slot);
      if (s.sym == Sym::Local) {
        plan_.local_shapes[slot] = sh;
        local_reads_[slot] = stmt_reads[k];
      } else {
        Shape& o = plan_.output_shapes[slot];
        if (assigned[slot]) o = broadcast_at(o, sh, s.expr->span);
        else o = sh;
        assigned[slot] = true;
      }
    }
    group_outputs(stmt_reads);
    return std::move(plan_);
  }

 private:
  Shape broadcast_at(const Shape& a, const Shape& b, Span where) {
    Shape out;
    if (!broadcast(a, b, out))
      fail(ErrorCode::Data, render_diagnostic(p_.ast.source, where,
                                              "operands of shapes " + to_string(a) + " and " + to_string(b) +
                                                  " do not broadcast",
                                              "NumPy broadcasting: trailing dimensions must be equal or 1"));
    return out;
  }

  // The NumPy shape of an expression; a reduction becomes a step (its map's steps first).
  Shape shape_of(const Expr& e, bool in_map) {
    switch (e.kind) {
      case Expr::Literal: return Shape{};
      case Expr::Index: return shape_of(*e.args[1], in_map);  // x[j] has the shape of j
      case Expr::Name:
        switch (e.sym) {
          case Sym::Input: {
            const Param& q = p_.inputs[static_cast<std::size_t>(e.slot)];
            return q.weak || q.raw ? Shape{} : in_[static_cast<std::size_t>(e.slot)];
          }
          case Sym::Local: return plan_.local_shapes[static_cast<std::size_t>(e.slot)];
          case Sym::Output:
            if (in_map)
              program_error(p_.ast.source, e.span, "output '" + e.name + "' is read inside a reduction",
                            "reduce a local instead, e.g. 't = ...; s = sum(t)'");
            return plan_.output_shapes[static_cast<std::size_t>(e.slot)];
          default: return Shape{};
        }
      default: break;
    }
    if (is_reduction(e)) return plan_.reductions[static_cast<std::size_t>(step(e))].out_shape;
    if (e.kind == Expr::Call && e.builtin && e.builtin->special == Special::Size) return Shape{};
    Shape acc;
    const Expr* first = nullptr;
    for (const auto& a : e.args) {
      Shape s = shape_of(*a, in_map);
      if (first) {
        acc = broadcast_at(acc, s, e.span);
      } else {
        acc = s;
        first = a.get();
      }
    }
    return acc;
  }

  int step(const Expr& call) {
    auto it = steps_.find(&call);
    if (it != steps_.end()) return it->second;
    const Expr& map = *call.args[0];
    Shape ms = shape_of(map, true);
    ReduceStep st;
    st.call = &call;
    st.map = &map;
    const Builtin& b = *call.builtin;
    const ReduceArgs& r = *call.reduce;
    st.what = b.reduce;
    st.nan_ignoring = b.nan_ignoring();
    st.in = call.op_type;
    st.acc = reduce_accumulator(b, st.in, r.dtype);
    st.out = call.type;
    st.ddof = r.ddof;
    st.keepdims = r.keepdims;
    st.map_shape = ms;
    st.axes = normalise_axes(call, ms);
    st.out_shape.ndim = 0;
    for (int d = 0; d < ms.ndim; ++d) {
      const bool reduced = std::binary_search(st.axes.begin(), st.axes.end(), d);
      if (reduced) st.count *= ms[d];
      if (!reduced || st.keepdims) st.out_shape[st.out_shape.ndim++] = reduced ? 1 : ms[d];
    }
    Reads rd;
    collect(map, rd);
    st.reads.assign(rd.steps.begin(), rd.steps.end());
    st.locals.assign(rd.locals.begin(), rd.locals.end());
    plan_.reductions.push_back(std::move(st));
    const int k = static_cast<int>(plan_.reductions.size() - 1);
    steps_[&call] = k;
    return k;
  }

  std::vector<int> normalise_axes(const Expr& call, const Shape& ms) {
    const ReduceArgs& r = *call.reduce;
    std::vector<int> axes;
    if (r.all_axes) {
      for (int d = 0; d < ms.ndim; ++d) axes.push_back(d);
      return axes;
    }
    std::vector<std::int64_t> written;
    for (std::size_t k = 0; k < r.axes.size(); ++k) {
      std::int64_t a = r.axes[k];
      if (a < -ms.ndim || a >= ms.ndim)
        program_error(p_.ast.source, r.axis_spans[k],
                      "axis " + std::to_string(a) + " is out of bounds for array of dimension " + std::to_string(ms.ndim),
                      "the argument of '" + call.name + "' has shape " + to_string(ms) + ": " + dims_text(ms.ndim));
      const int d = static_cast<int>(a < 0 ? a + ms.ndim : a);
      for (std::size_t j = 0; j < axes.size(); ++j)
        if (axes[j] == d)
          program_error(p_.ast.source, r.axis_spans[k],
                        "axis " + std::to_string(a) + " repeats axis " + std::to_string(written[j]) + " (both are axis " +
                            std::to_string(d) + " of shape " + to_string(ms) + ")",
                        "give each axis once");
      axes.push_back(d);
      written.push_back(a);
    }
    std::sort(axes.begin(), axes.end());
    return axes;
  }

  // The steps and locals an expression reads, through its locals too; a
  // reduction's own map is its step's business.
  void collect(const Expr& e, Reads& r) {
    if (is_reduction(e)) {
      r.steps.insert(steps_.at(&e));
      return;
    }
    if (e.kind == Expr::Name && e.sym == Sym::Local) {
      const auto slot = static_cast<std::size_t>(e.slot);
      if (r.locals.insert(e.slot).second) {
        r.steps.insert(local_reads_[slot].steps.begin(), local_reads_[slot].steps.end());
        r.locals.insert(local_reads_[slot].locals.begin(), local_reads_[slot].locals.end());
      }
      return;
    }
    for (const auto& a : e.args) collect(*a, r);
  }

  // Outputs of one shape form one elementwise step. A statement may read an
  // output of its own step only (an output of another shape would need its
  // own pass first).
  void group_outputs(const std::vector<Reads>& stmt_reads) {
    std::vector<int> group(p_.outputs.size(), -1);
    for (std::size_t o = 0; o < p_.outputs.size(); ++o) {
      for (std::size_t g = 0; g < plan_.elementwise.size(); ++g)
        if (plan_.elementwise[g].shape == plan_.output_shapes[o]) group[o] = static_cast<int>(g);
      if (group[o] < 0) {
        ElementwiseStep es;
        es.shape = plan_.output_shapes[o];
        plan_.elementwise.push_back(es);
        group[o] = static_cast<int>(plan_.elementwise.size() - 1);
      }
      plan_.elementwise[static_cast<std::size_t>(group[o])].outputs.push_back(static_cast<int>(o));
    }
    std::vector<std::set<int>> reads(plan_.elementwise.size());
    for (std::size_t k = 0; k < p_.ast.stmts.size(); ++k) {
      const Stmt& s = p_.ast.stmts[k];
      if (s.sym != Sym::Output) continue;
      const int g = group[static_cast<std::size_t>(s.slot)];
      plan_.elementwise[static_cast<std::size_t>(g)].stmts.push_back(static_cast<int>(k));
      reads[static_cast<std::size_t>(g)].insert(stmt_reads[k].steps.begin(), stmt_reads[k].steps.end());
      check_output_reads(*s.expr, g, group);
      for (int l : stmt_reads[k].locals) check_output_reads(local_expr(l), g, group);
    }
    for (std::size_t g = 0; g < reads.size(); ++g) plan_.elementwise[g].reads.assign(reads[g].begin(), reads[g].end());
  }

  const Expr& local_expr(int slot) const {
    for (const Stmt& s : p_.ast.stmts)
      if (s.sym == Sym::Local && s.slot == slot) return *s.expr;
    fail(ErrorCode::Internal, "reduce plan: local {} has no statement", slot);
  }

  void check_output_reads(const Expr& e, int g, const std::vector<int>& group) {
    if (is_reduction(e)) return;
    if (e.kind == Expr::Name && e.sym == Sym::Output && group[static_cast<std::size_t>(e.slot)] != g)
      program_error(p_.ast.source, e.span,
                    "output '" + e.name + "' has shape " + to_string(plan_.output_shapes[static_cast<std::size_t>(e.slot)]) +
                        ", and is read by a statement whose result has shape " +
                        to_string(plan_.elementwise[static_cast<std::size_t>(g)].shape),
                    "compute it as a local first, e.g. 't = ...', and read the local");
    for (const auto& a : e.args) check_output_reads(*a, g, group);
  }

  const Program& p_;
  const std::vector<Shape>& in_;
  ReducePlan plan_;
  std::map<const Expr*, int> steps_;
  std::vector<Reads> local_reads_;
};

// ---- derived elementwise programs ----

class Deriver {
 public:
  Deriver(const Program& p, const ReducePlan& plan) : p_(p), plan_(plan) {
    d_.program = std::make_shared<Program>();
    d_.program->ast.source = p.ast.source;
    d_.program->uses_index = p.uses_index;
    input_.assign(p.inputs.size(), -1);
    local_.assign(p.locals.size(), -1);
    output_.assign(p.outputs.size(), -1);
  }

  // Declares the locals (in slot order), the outputs and the inputs first, so
  // that slots are known before any expression is cloned.
  void prepare(const std::vector<int>& locals, const std::vector<int>& outputs, const std::vector<int>& steps,
               const std::vector<const Expr*>& roots) {
    Program& q = *d_.program;
    for (int l : locals) {
      local_[static_cast<std::size_t>(l)] = static_cast<int>(q.locals.size());
      q.locals.push_back(p_.locals[static_cast<std::size_t>(l)]);
    }
    std::set<int> used;
    for (const Expr* r : roots) inputs_of(*r, used);
    for (int l : locals)
      for (const Stmt& s : p_.ast.stmts)
        if (s.sym == Sym::Local && s.slot == l) inputs_of(*s.expr, used);
    for (int o : outputs)
      if (p_.outputs[static_cast<std::size_t>(o)].input >= 0) used.insert(p_.outputs[static_cast<std::size_t>(o)].input);
    for (int k : used) {
      input_[static_cast<std::size_t>(k)] = static_cast<int>(q.inputs.size());
      q.inputs.push_back(p_.inputs[static_cast<std::size_t>(k)]);
      d_.inputs.push_back(k);
    }
    for (int j : steps) {
      step_input_[j] = static_cast<int>(q.inputs.size());
      Param r;
      r.name = "_r" + std::to_string(j);
      r.dtype = plan_.reductions[static_cast<std::size_t>(j)].out;
      q.inputs.push_back(r);
      d_.inputs.push_back(-1 - j);
    }
    for (int o : outputs) {
      output_[static_cast<std::size_t>(o)] = static_cast<int>(q.outputs.size());
      Var v = p_.outputs[static_cast<std::size_t>(o)];
      if (v.input >= 0) v.input = input_[static_cast<std::size_t>(v.input)];
      q.outputs.push_back(v);
    }
    for (const Stmt& s : p_.ast.stmts)
      if (s.sym == Sym::Local && local_[static_cast<std::size_t>(s.slot)] >= 0) add_stmt(s);
  }

  void add_stmt(const Stmt& s) {
    Stmt c;
    c.span = s.span;
    c.target = s.target;
    c.target_span = s.target_span;
    c.declared = s.declared;
    c.declared_span = s.declared_span;
    c.compound = s.compound;
    c.expr = clone(*s.expr);
    c.sym = s.sym;
    c.slot = s.sym == Sym::Local ? local_[static_cast<std::size_t>(s.slot)] : output_[static_cast<std::size_t>(s.slot)];
    d_.program->ast.stmts.push_back(std::move(c));
  }

  // A new output `name = e` (converted to dtype t).
  void add_output(const std::string& name, DType t, const Expr& e) {
    Program& q = *d_.program;
    Var v;
    v.name = name;
    v.dtype = t;
    v.declared = t;
    Stmt s;
    s.span = e.span;
    s.target = name;
    s.target_span = e.span;
    s.expr = clone(e);
    s.sym = Sym::Output;
    s.slot = static_cast<int>(q.outputs.size());
    q.outputs.push_back(v);
    q.ast.stmts.push_back(std::move(s));
  }

  ExprPtr clone(const Expr& e) {
    auto c = std::make_unique<Expr>();
    c->span = e.span;
    c->op_span = e.op_span;
    c->depth = e.depth;
    c->parenthesized = e.parenthesized;
    if (is_reduction(e)) {  // its result, an input of this program
      const int j = plan_.step_of(&e);
      c->kind = Expr::Name;
      c->name = "_r" + std::to_string(j);
      c->sym = Sym::Input;
      c->slot = step_input_.at(j);
      c->type = e.type;
      c->op_type = e.type;
      return c;
    }
    c->kind = e.kind;
    c->op = e.op;
    c->name = e.name;
    c->value = e.value;
    c->suffix_type = e.suffix_type;
    c->type = e.type;
    c->weak = e.weak;
    c->op_type = e.op_type;
    c->builtin = e.builtin;
    c->sym = e.sym;
    c->slot = remap(e);
    c->folded = e.folded;
    for (const auto& a : e.args) c->args.push_back(clone(*a));
    return c;
  }

  Derived take() { return std::move(d_); }

 private:
  int remap(const Expr& e) const {
    const auto slot = static_cast<std::size_t>(e.slot);
    int r = e.slot;
    switch (e.sym) {
      case Sym::Input: r = input_[slot]; break;
      case Sym::Local: r = local_[slot]; break;
      case Sym::Output: r = output_[slot]; break;
      default: return e.slot;
    }
    if (r < 0) fail(ErrorCode::Internal, "reduce plan: '{}' is read by a pass that does not make it", e.name);
    return r;
  }

  void inputs_of(const Expr& e, std::set<int>& used) {
    if (is_reduction(e)) return;
    if (e.kind == Expr::Name && e.sym == Sym::Input) used.insert(e.slot);
    for (const auto& a : e.args) inputs_of(*a, used);
  }

  const Program& p_;
  const ReducePlan& plan_;
  Derived d_;
  std::vector<int> input_, local_, output_;
  std::map<int, int> step_input_;
};

}  // namespace

std::string describe(const Program& p, const ReducePlan& plan) {
  auto text = [&](Span sp) { return p.ast.source.substr(sp.begin, sp.end - sp.begin); };
  std::string s;
  int pass = 0;
  for (const ReduceStep& st : plan.reductions) {
    std::string axes;
    for (int a : st.axes) axes += (axes.empty() ? "" : ", ") + std::to_string(a);
    s += "pass " + std::to_string(++pass) + ": " + text(st.call->span) + ": " + text(st.map->span) + " over axes (" +
         axes + ") of " + to_string(st.map_shape) + " -> " + std::string(dtype_name(st.out)) + " " +
         to_string(st.out_shape) + "\n";
  }
  for (const ElementwiseStep& es : plan.elementwise) {
    std::string outs, reads;
    for (int o : es.outputs) outs += (outs.empty() ? "" : ", ") + p.outputs[static_cast<std::size_t>(o)].name;
    for (int r : es.reads) reads += (reads.empty() ? "" : ", ") + std::to_string(r + 1);
    s += "pass " + std::to_string(++pass) + ": elementwise " + to_string(es.shape) + ": " + outs +
         (reads.empty() ? "" : " (reads pass" + std::string(es.reads.size() > 1 ? "es " : " ") + reads + ")") + "\n";
  }
  return s;
}

bool is_derived_name(const std::string& name) {
  if (name == "_map") return true;
  if (name.size() < 3 || name.compare(0, 2, "_r") != 0) return false;
  return name.find_first_not_of("0123456789", 2) == std::string::npos;
}

int ReducePlan::step_of(const Expr* call) const {
  for (std::size_t k = 0; k < reductions.size(); ++k)
    if (reductions[k].call == call) return static_cast<int>(k);
  return -1;
}

ReducePlan plan_reductions(const Program& p, const std::vector<Shape>& input_shapes) {
  return Planner(p, input_shapes).run();
}

Derived derive_map(const Program& p, const ReducePlan& plan, int k) {
  const ReduceStep& st = plan.reductions[static_cast<std::size_t>(k)];
  Deriver d(p, plan);
  d.prepare(st.locals, {}, st.reads, {st.map});
  d.add_output("_map", st.in, *st.map);
  return d.take();
}

Derived derive_elementwise(const Program& p, const ReducePlan& plan, int k) {
  const ElementwiseStep& es = plan.elementwise[static_cast<std::size_t>(k)];
  std::set<int> locals;
  std::vector<const Expr*> roots;
  for (int s : es.stmts) roots.push_back(p.ast.stmts[static_cast<std::size_t>(s)].expr.get());
  // The locals the statements read, through other locals too.
  std::vector<std::set<int>> local_reads(p.locals.size());
  std::function<void(const Expr&, std::set<int>&)> walk = [&](const Expr& e, std::set<int>& out) {
    if (is_reduction(e)) return;
    if (e.kind == Expr::Name && e.sym == Sym::Local && out.insert(e.slot).second) {
      const auto& more = local_reads[static_cast<std::size_t>(e.slot)];
      out.insert(more.begin(), more.end());
    }
    for (const auto& a : e.args) walk(*a, out);
  };
  for (const Stmt& s : p.ast.stmts)
    if (s.sym == Sym::Local) walk(*s.expr, local_reads[static_cast<std::size_t>(s.slot)]);
  for (const Expr* r : roots) walk(*r, locals);
  Deriver d(p, plan);
  d.prepare(std::vector<int>(locals.begin(), locals.end()), es.outputs, es.reads, roots);
  for (int s : es.stmts) d.add_stmt(p.ast.stmts[static_cast<std::size_t>(s)]);
  return d.take();
}

}  // namespace cujit::plan
