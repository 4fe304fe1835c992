#include "sim/gas/gas_params.h"

namespace tp {

namespace {

constexpr auto real = &real_field<GasParams>;
constexpr auto whole = &whole_field<GasParams>;
constexpr auto choice = &choice_field<GasParams>;

std::vector<GasParamInfo> make_table() {
  using P = GasParams;
  return {
      real("dt_max", "Longest step", "s", &P::dt_max, 1e-4, 0.1, 1.0 / 30.0, true,
           "The longest time step. Steps are shorter when the gas is fast (the CFL number)."),
      real("cfl", "CFL number", "cells", &P::cfl, 0.1, 10, 2, false,
           "How many cells the fastest gas may cross in one step. Semi-Lagrangian advection is "
           "stable at any value; larger steps blur more."),
      choice("advection", "Advection", &P::advection, 1, {"semi-lagrangian", "maccormack"},
             "Semi-Lagrangian: trace each cell back along the flow and interpolate (first order, "
             "blurs). MacCormack (Selle et al. 2008): adds back half the error of a round trip, "
             "clamped to the values it interpolated: sharper smoke."),
      choice("pressure_solver", "Pressure solver", &P::pressure_solver, 0, {"mgpcg", "jacobi"},
             "MGPCG: conjugate gradients preconditioned by a multigrid V-cycle (McAdams et al. "
             "2010), to the tolerance below in a few iterations. Jacobi: a fixed number of "
             "sweeps, as interactive toys do; leaves divergence the report shows."),
      real("pressure_tolerance", "Pressure tolerance", "", &P::pressure_tolerance, 1e-7, 0.1, 1e-4, true,
           "MGPCG stops when its largest residual is this fraction of the largest divergence "
           "it started from."),
      whole("pressure_max_iterations", "Max MGPCG iterations", &P::pressure_max_iterations, 1, 500, 60,
            "Bound on MGPCG's iterations in one step (bounded time; the report says when it "
            "stopped short of the tolerance)."),
      whole("jacobi_iterations", "Jacobi iterations", &P::jacobi_iterations, 1, 1000, 40,
            "Sweeps of the Jacobi option."),
      real("buoyancy", "Buoyancy", "m/s^2/K", &P::buoyancy, -100, 100, 1, false,
           "Upward acceleration of gas per kelvin above the ambient (Fedkiw et al. 2001)."),
      real("weight", "Smoke weight", "m/s^2", &P::weight, -100, 100, 0.1, false,
           "Downward acceleration per unit of smoke density."),
      real("vorticity", "Vorticity confinement", "", &P::vorticity, 0, 10, 1, false,
           "Epsilon of vorticity confinement (Fedkiw, Stam & Jensen 2001): puts back the small "
           "curls that the grid smooths away. The force scales with the cell size."),
      real("viscosity", "Viscosity", "m^2/s", &P::viscosity, 0, 1, 0, false,
           "Kinematic viscosity, implicit (stable at any value). Air is about 1.5e-5; 0 leaves "
           "only the grid's own smoothing."),
      whole("viscosity_iterations", "Viscosity iterations", &P::viscosity_iterations, 1, 500, 40,
            "Jacobi sweeps of the implicit viscosity."),
      real("density_decay", "Smoke fading", "1/s", &P::density_decay, 0, 100, 0, false,
           "Smoke and dye fade at this rate (0: kept)."),
      real("temperature_decay", "Cooling", "1/s", &P::temperature_decay, 0, 100, 0.5, false,
           "Heat fades at this rate, so that a plume slows as it rises."),
  };
}

}  // namespace

const std::vector<GasParamInfo>& gas_param_table() {
  static const std::vector<GasParamInfo> table = make_table();
  return table;
}

GasParams default_gas_params() { return default_fields(gas_param_table()); }

std::vector<std::string> clamp_gas_params(GasParams& p, const GasParams& previous) {
  return clamp_fields(gas_param_table(), p, previous);
}

bool set_gas_param_from_text(GasParams& p, const std::string& key, const std::string& value, std::string* error) {
  return set_field_from_text(gas_param_table(), p, key, value, error);
}

}  // namespace tp
