// finegrain in Task Bench (Slaughter et al., "Task Bench: A Parameterized
// Benchmark for Evaluating Parallel Runtime Performance", SC 2020), through
// finegrain's C API (crates/finegrain-c, the C++ wrapper finegrain.hpp).
//
// Task Bench's own core (App, TaskGraph, the kernels and the checks of every
// input, built from ../shared/peers/task-bench/core by
// scripts/taskbench.sh) parses the arguments, describes the graphs and runs
// each point; this file only schedules. A timestep's points, of every graph
// that has that timestep, are one finegrain parallel loop with a grain of
// one point; the loop ends before the next timestep starts, so every input a
// point reads (its dependencies, from the previous timestep) is complete.
// Outputs live in two buffers per graph (even and odd timesteps), one slot
// per point; scratch is one slot per point, prepared once.
//
// Options beyond Task Bench's: -worker N (threads, default 1, as Task
// Bench's OpenMP implementation), -policy SPEC (a finegrain policy spec,
// default the FINEGRAIN_POLICY environment variable, else adm-central).

#include "core.h"
#include "timer.h"

#include <finegrain.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace {

struct GraphState {
  TaskGraph graph;
  std::vector<char> outputs[2];
  std::vector<char> scratch;
};

struct Point {
  size_t graph;
  long point;
};

void run_point(GraphState &s, long timestep, long point) {
  const TaskGraph &g = s.graph;
  size_t out_bytes = g.output_bytes_per_task;
  char *out = s.outputs[timestep % 2].data() + point * out_bytes;
  const char *prev = s.outputs[(timestep + 1) % 2].data();
  long last_offset = g.offset_at_timestep(timestep - 1);
  long last_width = g.width_at_timestep(timestep - 1);
  long dset = g.dependence_set_at_timestep(timestep);
  std::vector<std::pair<long, long> > deps = g.dependencies(dset, point);
  std::vector<const char *> inputs;
  std::vector<size_t> input_bytes;
  for (const auto &span : deps) {
    for (long dep = span.first; dep <= span.second; dep++) {
      if (last_offset <= dep && dep < last_offset + last_width) {
        inputs.push_back(prev + dep * out_bytes);
        input_bytes.push_back(out_bytes);
      }
    }
  }
  char *scratch = g.scratch_bytes_per_task ? s.scratch.data() + point * g.scratch_bytes_per_task : nullptr;
  g.execute_point(timestep, point, out, out_bytes, inputs.data(), input_bytes.data(), inputs.size(), scratch,
                  g.scratch_bytes_per_task);
}

}  // namespace

int main(int argc, char **argv) {
  App app(argc, argv);
  long workers = 1;
  std::string policy = getenv("FINEGRAIN_POLICY") ? getenv("FINEGRAIN_POLICY") : "adm-central";
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-worker") && i + 1 < argc) {
      workers = atol(argv[++i]);
    } else if (!strcmp(argv[i], "-policy") && i + 1 < argc) {
      policy = argv[++i];
    }
  }
  if (workers < 1) {
    fprintf(stderr, "error: -worker must be at least 1\n");
    return 1;
  }
  try {
    finegrain::pool pool(policy.c_str(), (size_t)workers);
    std::vector<GraphState> states(app.graphs.size());
    long steps = 0;
    for (size_t i = 0; i < app.graphs.size(); i++) {
      GraphState &s = states[i];
      s.graph = app.graphs[i];
      size_t slots = (size_t)s.graph.max_width;
      s.outputs[0].assign(slots * s.graph.output_bytes_per_task, 0);
      s.outputs[1].assign(slots * s.graph.output_bytes_per_task, 0);
      s.scratch.assign(slots * s.graph.scratch_bytes_per_task, 0);
      for (size_t p = 0; p < slots && s.graph.scratch_bytes_per_task; p++) {
        TaskGraph::prepare_scratch(s.scratch.data() + p * s.graph.scratch_bytes_per_task, s.graph.scratch_bytes_per_task);
      }
      steps = std::max(steps, s.graph.timesteps);
    }
    app.display();
    std::vector<Point> points;
    Timer::time_start();
    pool.run([&] {
      for (long t = 0; t < steps; t++) {
        points.clear();
        for (size_t i = 0; i < states.size(); i++) {
          const TaskGraph &g = states[i].graph;
          if (t >= g.timesteps) continue;
          long offset = g.offset_at_timestep(t), width = g.width_at_timestep(t);
          for (long p = offset; p < offset + width; p++) points.push_back(Point{i, p});
        }
        finegrain::parallel_for(0, points.size(), 1, [&](size_t lo, size_t hi) {
          for (size_t k = lo; k < hi; k++) run_point(states[points[k].graph], t, points[k].point);
        });
      }
    });
    double elapsed = Timer::time_end();
    app.report_timing(elapsed);
  } catch (const finegrain::error &e) {
    fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
