# The five calibration files, in the order of proofs/verdict_calibration.md's tables, and the
# name each table gives its system (sourced by calibration-table.sh and
# probe-calibration-table.sh).
# shellcheck shell=bash disable=SC2034
calibration_files=(verdict_calibration verdict_calibration_vqs verdict_calibration_fifo
  verdict_calibration_hyper verdict_calibration_bfjs)
calibration_system() {
  case $1 in
    verdict_calibration) echo "unit jobs, M/Geo/3 (limit ρ = 1)";;
    verdict_calibration_vqs) echo "VQS, one server, 0.45/0.55 (limit λ = 4μ/3)";;
    verdict_calibration_fifo) echo "FIFO-FF, two servers, 0.6/0.3 (limit λ = 0.340806)";;
    verdict_calibration_hyper) echo "held out: FIFO-FF, halves, 1-or-91-slot service (limit λ = 0.4)";;
    verdict_calibration_bfjs) echo "held out: BF-J/S, quarters, Bernoulli, D = 50 (limit λ = 0.4)";;
  esac
}
