// Figures as the benchmarks print them: thousands separators, a fixed number of decimals.
export function format(value: number, digits = 0): string {
  return value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}
