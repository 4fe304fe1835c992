#include "app/cli.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "render/render_types.h"
#include "sim/water/params.h"
#include "util/paths.h"

namespace tp {

std::string usage_text() {
  return R"(usage: tidepool [options]

Scene and solver
  --scene NAME|FILE        scene name from assets/scenes (default dam_break) or a .json file
  --solver NAME            pressure solver: )" + solver_names_list() + R"( (default: the
                           scene's, else pbf in the window, wcsph headless)
  --backend auto|cpu|cuda  where to simulate (default auto: CUDA when a device answers)
  --threads N              CPU backend: use N threads (default: all cores; the window's
                           simulation thread all but one)
  --particles N            about N particles for the scene's water (changes the spacing)
  --spacing S              particle spacing in metres, instead of the scene's (not with
                           --particles)
  --cells N                gas scenes: N grid cells along the tank's longest side, instead
                           of the scene's (e.g. 64; the grid is cubic cells)
  --load-state FILE        continue a simulation saved with the panel's Save state (particles,
                           obstacles, emitters, time, parameters; --set still applies after it)
  --save-state FILE        headless: save the simulation state at the end of the run (for
                           --load-state, in a window or another headless run)
  --preset FILE            load simulation parameters from a preset file (the panel saves them)
  --set KEY=VALUE          set a simulation parameter (repeatable), e.g. --set viscosity=0.01
                           (order: defaults, the scene's params, --preset, --solver, --set)

Window
  --frames N               quit after N rendered frames
  --screenshot PNG         save the last frame as PNG (needs a window)
  --video MP4              record the view into an MP4 from the first frame to the end,
                           as F9 does (needs a window and the ffmpeg program)
  --replay SESSION         replay a session recorded with F8, on the CPU, checking its
                           hashes: in the window (pause, step, a time slider, take over);
                           with --headless (or --export, --export-mesh) without one, exit
                           code 1 when the replay departs from it; with --video MP4,
                           rendered offline at --size, --render and --fps, then it quits;
                           with --backend cuda on the GPU, within the device tolerance
  --fps N                  frames per simulated second of --replay's --video (default 30)
  --size WxH               window size in pixels (default 1280x800)
  --color MODE             water | speed | density | pressure | flat; debug views:
                           neighbours | vorticity | density_error
  --render MODE            spheres (default) | surface (screen-space water surface) |
                           mesh (a triangle surface built each frame, shaded as the
                           surface; --mesh-cell, --mesh-iso, --mesh-anisotropic apply)
  --surface-scale auto|S   surface mode: the resolution of its passes, a fraction of the
                           window per axis; auto (default) lowers it (not below 0.5) while
                           frames take too long, S from 0.5 to 1 fixes it
  --surface-anisotropic on|off  surface mode: particles as ellipsoids stretched along
                           their neighbourhood (default on) or as spheres
  --gl-check               check for OpenGL errors after every render pass; exit 1 on any
  --hide-panel             start with the panel hidden (Tab shows it)
  --grid-overlay           start with the Debug views' overlay of the neighbour grid's
                           occupied cells, coloured by particles per cell
  --steps-per-frame N      exactly N steps per frame instead of following the clock
                           (the frame waits for them: deterministic, not real time)
  --quality Q              realtime (window default: keeps the clock, particle count
                           chosen for this machine) | accurate (each solver's paper-grade
                           settings, as the validation tests run them; headless default)
  --bench-window SECONDS   run the window for SECONDS of wall time, the first one a
                           warm-up not measured, print frames/s, frame times, simulated s
                           per wall s, ms per phase and per pass, then quit (--bench-json
                           FILE for JSON)
  --bench-drag             with --bench-window: a scripted left drag through the water
                           half-way through, and the latency until the water shows it

Headless (no window, no OpenGL)
  --headless               simulate without a window
  --time SECONDS           run until this simulated time (headless; default 1 s, or one more
                           second after a loaded state's time)
  --steps N                number of steps to run (headless)
  --report FILE|-          write a JSON summary at exit (- for standard output)
  --export DIR             write particles as binary PLY frames (frame_00000.ply, ...),
                           with a progress line each second and a summary on stderr
  --export-fps F           exported frames per simulated second (default 30)
  --export-mesh DIR        write the water's surface as mesh frames (mesh_00000.ply, ...):
                           binary PLY with normals and velocities (docs/mesh.md), at the
                           --export-fps rate; with --export, both
  --mesh-format ply|obj    the mesh frames' format (default ply)
  --mesh-cell C            mesh lattice cell, in particle spacings (default 0.5)
  --mesh-iso L             surface level of the field, 1 inside water (default 0.5)
  --mesh-anisotropic on|off  Yu & Turk's stretched kernels (default on)

Benchmark (headless)
  --bench                  run headless and print a table: particles, steps, mean dt, ms per
                           step and per phase, wall s per simulated s, density error,
                           neighbours, iterations (300 steps unless --steps or --time)
                           With --bench, --scene, --solver, --backend, --threads, --particles
                           and --spacing take comma-separated lists and every combination
                           runs from a fresh start, e.g. --solver wcsph,pbf --particles
                           10000,30000; an unavailable backend is a skipped row
  --bench-mesh on|off      after each run, time the surface mesh of its last state, isotropic
                           and anisotropic (default on; --mesh-cell and --mesh-iso apply)
  --bench-json FILE|-      also write the results as JSON (- for standard output; the table
                           then goes to standard error)

  --version                print the version and the compiled backends
  --help                   print this help
)";
}

namespace {

bool parse_int(const std::string& text, long long lo, long long hi, long long* out) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno || *end != '\0' || v < lo || v > hi) return false;
  *out = v;
  return true;
}

bool parse_real(const std::string& text, double lo, double hi, double* out) {
  if (text.empty()) return false;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (*end != '\0' || !std::isfinite(v) || v < lo || v > hi) return false;
  *out = v;
  return true;
}

// Splits "a,b,c" into its items. An empty item (",a", "a,,b", "a,") is an error.
bool split_list(const std::string& option, const std::string& text, std::vector<std::string>* items,
                std::string* error) {
  items->clear();
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    items->push_back(
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (items->back().empty()) {
      *error = option + (text.empty() ? " needs a value"
                                      : " has an empty item in '" + text +
                                            "' (a list is items separated by single commas)");
      return false;
    }
    if (comma == std::string::npos) return true;
    start = comma + 1;
  }
}

bool parse_threads(const std::string& text, int* out) {
  long long n = 0;
  if (!parse_int(text, 1, 4096, &n)) return false;
  *out = int(n);
  return true;
}

bool parse_count(const std::string& text, uint64_t* out) {
  long long n = 0;
  if (!parse_int(text, 1, 1000000000LL, &n)) return false;
  *out = uint64_t(n);
  return true;
}

bool parse_cells(const std::string& text, int* out) {
  long long n = 0;
  if (!parse_int(text, 4, 1024, &n)) return false;
  *out = int(n);
  return true;
}

bool parse_spacing(const std::string& text, double* out) {
  return parse_real(text, 0.0, 1e6, out) && *out > 0.0;
}

// Each item through `parse` into *list; on the first that fails, "<rule>, not '<item>'".
template <class T>
bool parse_items(const std::vector<std::string>& items, bool (*parse)(const std::string&, T*),
                 const std::string& rule, std::vector<T>* list, std::string* error) {
  list->clear();
  for (const std::string& item : items) {
    T value{};
    if (!parse(item, &value)) {
      *error = rule + ", not '" + item + "'";
      return false;
    }
    list->push_back(value);
  }
  return true;
}

}  // namespace

size_t bench_configurations(const Options& o) {
  size_t n = 1;
  for (size_t size : {o.scene_list.size(), o.solver_list.size(), o.backend_list.size(),
                      o.particles_list.size() + o.spacing_list.size(), o.threads_list.size(),
                      o.cells_list.size()})
    n *= std::max<size_t>(size, 1);
  return n;
}

bool parse_command_line(int argc, char** argv, Options* o, std::string* error) {
  auto fail = [&](const std::string& message) {
    *error = message;
    return false;
  };
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool has_inline = false;
    if (arg.rfind("--", 0) == 0) {
      const size_t eq = arg.find('=');
      if (eq != std::string::npos && arg.rfind("--set", 0) != 0) {
        value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
        has_inline = true;
      }
    }
    auto next = [&](std::string* out) {
      if (has_inline) {
        *out = value;
        return true;
      }
      if (i + 1 >= argc) return false;
      *out = argv[++i];
      return true;
    };
    auto need = [&](std::string* out) {
      if (!next(out)) return fail(arg + " needs a value");
      return true;
    };
    long long n = 0;
    double d = 0.0;
    std::string v;
    std::vector<std::string> items;
    o->given.insert(arg.rfind("--set", 0) == 0 ? "--set" : arg);
    if (arg == "--help" || arg == "-h") {
      o->help = true;
    } else if (arg == "--version") {
      o->version = true;
    } else if (arg == "--headless") {
      o->headless = true;
    } else if (arg == "--bench") {
      o->bench = true;
    } else if (arg == "--scene") {
      if (!need(&v)) return false;
      if (!split_list(arg, v, &items, error)) return false;
      o->scene_list = items;
      o->scene = items.front();
    } else if (arg == "--replay") {
      if (!need(&o->replay)) return false;
      if (o->replay.empty()) return fail("--replay needs a file name");
    } else if (arg == "--fps") {
      if (!need(&v)) return false;
      if (!parse_real(v, 1.0, 240.0, &d)) return fail("--fps must be a number from 1 to 240");
      o->video_fps = d;
    } else if (arg == "--load-state") {
      if (!need(&o->load_state)) return false;
      if (o->load_state.empty()) return fail("--load-state needs a file name");
    } else if (arg == "--save-state") {
      if (!need(&o->save_state)) return false;
      if (o->save_state.empty()) return fail("--save-state needs a file name");
    } else if (arg == "--preset") {
      if (!need(&o->preset)) return false;
      if (o->preset.empty()) return fail("--preset needs a file name");
    } else if (arg == "--solver") {
      if (!need(&v) || !split_list(arg, v, &items, error)) return false;
      int kind = 0;
      for (const std::string& item : items)
        if (!parse_solver(item, &kind))
          return fail("--solver must be one of " + solver_names_list() + ", not '" + item + "'");
      o->solver_list = items;
      o->solver = items.front();
    } else if (arg == "--backend") {
      if (!need(&v) || !split_list(arg, v, &items, error)) return false;
      for (const std::string& item : items)
        if (item != "auto" && item != "cpu" && item != "cuda")
          return fail("--backend must be auto, cpu or cuda, not '" + item + "'");
      o->backend_list = items;
      o->backend = items.front();
    } else if (arg == "--threads") {
      if (!need(&v) || !split_list(arg, v, &items, error) ||
          !parse_items(items, parse_threads, "--threads must be a whole number from 1 to 4096",
                       &o->threads_list, error))
        return false;
      o->threads = o->threads_list.front();
    } else if (arg == "--particles") {
      if (!need(&v) || !split_list(arg, v, &items, error) ||
          !parse_items(items, parse_count,
                       "--particles must be a whole number from 1 to 1000000000",
                       &o->particles_list, error))
        return false;
      o->particles = o->particles_list.front();
    } else if (arg == "--cells") {
      if (!need(&v) || !split_list(arg, v, &items, error) ||
          !parse_items(items, parse_cells, "--cells must be a whole number from 4 to 1024", &o->cells_list, error))
        return false;
      o->cells = o->cells_list.front();
    } else if (arg == "--spacing") {
      if (!need(&v) || !split_list(arg, v, &items, error) ||
          !parse_items(items, parse_spacing,
                       "--spacing must be a positive number of metres (e.g. 0.02)",
                       &o->spacing_list, error))
        return false;
      o->spacing = o->spacing_list.front();
    } else if (arg == "--bench-json") {
      if (!need(&o->bench_json)) return false;
      if (o->bench_json.empty()) return fail("--bench-json needs a file name or -");
    } else if (arg.rfind("--set", 0) == 0) {
      if (arg.size() > 5 && arg[5] == '=') v = arg.substr(6);
      else if (arg.size() > 5) return fail("unknown option '" + arg + "'");
      else if (!need(&v)) return false;
      const size_t eq = v.find('=');
      if (eq == std::string::npos || eq == 0)
        return fail("--set needs KEY=VALUE, e.g. --set viscosity=0.01 (got '" + v + "')");
      o->sets.emplace_back(v.substr(0, eq), v.substr(eq + 1));
    } else if (arg == "--frames") {
      if (!need(&v)) return false;
      if (!parse_int(v, 1, 1LL << 40, &n)) return fail("--frames must be a positive whole number");
      o->frames = int(std::min<long long>(n, 1 << 30));
    } else if (arg == "--screenshot") {
      if (!need(&o->screenshot)) return false;
      if (o->screenshot.empty()) return fail("--screenshot needs a file name");
      // (A name the format does not match would be a PNG named otherwise, said nowhere.)
      if (lower_extension(o->screenshot) != "png")
        return fail("--screenshot writes a PNG: name the file .png, not '" + o->screenshot + "'");
    } else if (arg == "--video") {
      if (!need(&o->video)) return false;
      if (o->video.empty()) return fail("--video needs a file name");
      if (lower_extension(o->video) != "mp4")
        return fail("--video writes an MP4 (H.264): name the file .mp4, not '" + o->video +
                    "' (the panel makes a GIF of a saved video)");
    } else if (arg == "--size") {
      if (!need(&v)) return false;
      long long w = 0, h = 0;
      const size_t x = v.find('x');
      if (x == std::string::npos || !parse_int(v.substr(0, x), 64, 16384, &w) ||
          !parse_int(v.substr(x + 1), 64, 16384, &h))
        return fail("--size must be WIDTHxHEIGHT from 64x64 to 16384x16384, e.g. 1280x800");
      o->width = int(w);
      o->height = int(h);
    } else if (arg == "--color") {
      if (!need(&v)) return false;
      ColorMode mode;
      if (!parse_color_mode(v, &mode)) return fail("--color must be one of " + color_mode_names() + ", not '" + v + "'");
      o->color = v;
    } else if (arg == "--render") {
      if (!need(&v)) return false;
      if (v != "spheres" && v != "surface" && v != "mesh")
        return fail("--render must be spheres, surface or mesh, not '" + v + "'");
      o->render = v;
    } else if (arg == "--surface-scale") {
      if (!need(&v)) return false;
      o->surface_scale_auto = v == "auto";
      if (!o->surface_scale_auto) {
        if (!parse_real(v, 0.5, 1.0, &d))
          return fail("--surface-scale must be auto or a number from 0.5 to 1, not '" + v + "'");
        o->surface_scale = float(d);
      }
    } else if (arg == "--surface-anisotropic") {
      if (!need(&v)) return false;
      if (v != "on" && v != "off") return fail("--surface-anisotropic must be on or off, not '" + v + "'");
      o->surface_anisotropic = v == "on";
    } else if (arg == "--gl-check") {
      o->gl_check = true;
    } else if (arg == "--hide-panel") {
      o->hide_panel = true;
    } else if (arg == "--grid-overlay") {
      o->grid_overlay = true;
    } else if (arg == "--steps-per-frame") {
      if (!need(&v)) return false;
      if (!parse_int(v, 1, 100000, &n)) return fail("--steps-per-frame must be from 1 to 100000");
      o->steps_per_frame = int(n);
    } else if (arg == "--bench-window") {
      if (!need(&v)) return false;
      if (!parse_real(v, 0.0, 1e6, &d) || d < 1.0)
        return fail("--bench-window must be a number of seconds, at least 1");
      o->bench_window = d;
    } else if (arg == "--bench-drag") {
      o->bench_drag = true;
    } else if (arg == "--quality") {
      if (!need(&v)) return false;
      if (v != "realtime" && v != "accurate")
        return fail("--quality must be realtime or accurate, not '" + v + "'");
      o->quality = v;
    } else if (arg == "--time") {
      if (!need(&v)) return false;
      if (!parse_real(v, 0.0, 1e7, &d) || d <= 0.0)
        return fail("--time must be a positive number of simulated seconds");
      o->time = d;
    } else if (arg == "--steps") {
      if (!need(&v)) return false;
      if (!parse_int(v, 1, 1LL << 50, &n)) return fail("--steps must be a positive whole number");
      o->steps = n;
    } else if (arg == "--report") {
      if (!need(&o->report)) return false;
      if (o->report.empty()) return fail("--report needs a file name or -");
    } else if (arg == "--export") {
      if (!need(&o->export_dir)) return false;
      if (o->export_dir.empty()) return fail("--export needs a directory");
    } else if (arg == "--export-mesh") {
      if (!need(&o->export_mesh_dir)) return false;
      if (o->export_mesh_dir.empty()) return fail("--export-mesh needs a directory");
    } else if (arg == "--mesh-format") {
      if (!need(&v)) return false;
      if (v != "ply" && v != "obj") return fail("--mesh-format must be ply or obj, not '" + v + "'");
      o->mesh_format = v;
    } else if (arg == "--mesh-cell") {
      if (!need(&v)) return false;
      if (!parse_real(v, 0.1, 4.0, &d)) return fail("--mesh-cell must be a number of spacings from 0.1 to 4");
      o->mesh.cell = float(d);
    } else if (arg == "--mesh-iso") {
      if (!need(&v)) return false;
      if (!parse_real(v, 0.01, 0.99, &d)) return fail("--mesh-iso must be a number from 0.01 to 0.99");
      o->mesh.iso = float(d);
    } else if (arg == "--mesh-anisotropic") {
      if (!need(&v)) return false;
      if (v != "on" && v != "off") return fail("--mesh-anisotropic must be on or off, not '" + v + "'");
      o->mesh.anisotropic = v == "on";
    } else if (arg == "--bench-mesh") {
      if (!need(&v)) return false;
      if (v != "on" && v != "off") return fail("--bench-mesh must be on or off, not '" + v + "'");
      o->bench_mesh = v == "on";
    } else if (arg == "--export-fps") {
      if (!need(&v)) return false;
      if (!parse_real(v, 0.001, 10000.0, &d)) return fail("--export-fps must be a number from 0.001 to 10000");
      o->export_fps = d;
    } else {
      return fail("unknown option '" + arg + "'");
    }
  }
  // --replay plays a session from its own start, in the window or headless (--headless, or
  // what only a headless run writes: --export, --export-mesh): what would choose another
  // start, or run another way, is refused.
  if (!o->replay.empty()) {
    for (const char* other : {"--scene", "--solver", "--particles", "--spacing", "--preset", "--set", "--load-state",
                              "--bench", "--quality", "--time", "--steps", "--save-state", "--report",
                              "--bench-window", "--steps-per-frame"})
      if (o->given.count(other))
        return fail(std::string("--replay takes everything from the session; ") + other +
                    " cannot be used with it");
    if (o->given.count("--export") || o->given.count("--export-mesh")) o->headless = true;
  }
  if (o->given.count("--fps") && (o->replay.empty() || o->video.empty()))
    return fail("--fps is the frame rate of a replay rendered offline: use it with --replay SESSION --video MP4");
  // Options that would be silently ignored in the chosen mode are errors instead.
  const bool headless = o->headless || o->bench;
  for (const char* window_only :
       {"--screenshot", "--video", "--frames", "--size", "--color", "--render", "--surface-scale", "--surface-anisotropic",
        "--gl-check", "--hide-panel", "--grid-overlay", "--steps-per-frame", "--bench-window", "--bench-drag"})
    if (headless && o->given.count(window_only))
      return fail(std::string(window_only) + " needs a window; it cannot be used with " +
                  (o->bench ? "--bench" : "--headless"));
  for (const char* headless_only : {"--time", "--steps", "--report", "--export", "--export-mesh", "--save-state"})
    if (!headless && o->given.count(headless_only))
      return fail(std::string(headless_only) + " works with --headless or --bench (the window "
                  "runs until closed or --frames)");
  if (o->given.count("--export-fps") && o->export_dir.empty() && o->export_mesh_dir.empty())
    return fail("--export-fps needs --export DIR or --export-mesh DIR");
  if (o->given.count("--mesh-format") && o->export_mesh_dir.empty())
    return fail("--mesh-format needs --export-mesh DIR");
  if (o->time > 0.0 && o->steps > 0) return fail("use --time or --steps, not both");
  if (o->given.count("--particles") && o->given.count("--spacing"))
    return fail(
        "use --particles or --spacing, not both (--particles picks a spacing from a count)");
  if (o->given.count("--bench-json") && !o->bench && !o->given.count("--bench-window"))
    return fail("--bench-json needs --bench or --bench-window");
  if (o->given.count("--bench-mesh") && !o->bench) return fail("--bench-mesh needs --bench");
  if (o->bench_drag && !o->given.count("--bench-window"))
    return fail("--bench-drag needs --bench-window SECONDS");
  // Lists are for the benchmark's matrix; anywhere else one value is meant.
  const std::pair<const char*, size_t> lists[] = {
      {"--scene", o->scene_list.size()},         {"--solver", o->solver_list.size()},
      {"--backend", o->backend_list.size()},     {"--threads", o->threads_list.size()},
      {"--particles", o->particles_list.size()}, {"--spacing", o->spacing_list.size()},
      {"--cells", o->cells_list.size()}};
  for (const auto& [option, size] : lists)
    if (size > 1 && !o->bench)
      return fail(std::string(option) + " takes a comma-separated list only with --bench (one "
                  "run per item); give one value here");
  const size_t configurations = bench_configurations(*o);
  if (configurations > 1)
    for (const char* one_run : {"--report", "--export", "--export-mesh", "--save-state", "--load-state"})
      if (o->given.count(one_run))
        return fail(std::string(one_run) + " is for one run, and this --bench runs " +
                    std::to_string(configurations) + " configurations; use --bench-json FILE "
                    "for the results of all of them");
  return true;
}

}  // namespace tp
