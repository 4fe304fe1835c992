#include "app/start/start_plan.h"

namespace tp {

std::string gas_refusal(const StartPlan& plan) {
  if (plan.water_options.empty()) return "";
  return plan.water_options.front() + " is for water scenes; '" + plan.scene +
         "' is a gas scene (use --cells N for its grid)";
}

}  // namespace tp
