// Decimal text <-> integer units, exactly, at the HTTP edge. Inside the service every price,
// size and amount is an integer count of small units; decimal strings exist only in requests
// and responses, and no float arithmetic touches them.

export const decimalPattern = /^(\d{1,16})(?:\.(\d+))?$/;

/**
 * Parses non-negative decimal text into integer units of 10^-decimals. Returns undefined when
 * the text is not a plain decimal, has more fractional digits than `decimals` (unless
 * `truncate`), or does not fit in a safe integer.
 */
export function parseUnits(text: string, decimals: number, truncate = false): number | undefined {
  const match = decimalPattern.exec(text);
  if (match === null) return undefined;
  const whole = match[1] ?? '0';
  let fraction = match[2] ?? '';
  if (fraction.length > decimals) {
    if (!truncate) return undefined;
    fraction = fraction.slice(0, decimals);
  }
  const units = Number(whole + fraction.padEnd(decimals, '0'));
  return Number.isSafeInteger(units) ? units : undefined;
}

/** Formats integer units of 10^-decimals as the shortest decimal text ("0.01", "5", "12.5"). */
export function formatUnits(units: number, decimals: number): string {
  if (!Number.isSafeInteger(units)) throw new Error(`formatUnits: ${units} is not a safe integer`);
  const negative = units < 0;
  const digits = String(negative ? -units : units).padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return (negative ? '-' : '') + (fraction === '' ? whole : `${whole}.${fraction}`);
}

/** The JSON number for integer units, for fields whose published type is number. */
export function unitsNumber(units: number, decimals: number): number {
  return Number(formatUnits(units, decimals));
}

/**
 * Reads a JSON value that holds a decimal (a number or a numeric string) into units. Numbers are
 * read through their shortest round-trip text, which is exact for every decimal a client means.
 */
export function jsonUnits(value: unknown, decimals: number, truncate = false): number | undefined {
  if (typeof value === 'string') return parseUnits(value.trim(), decimals, truncate);
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) {
    const text = String(value);
    if (text.includes('e')) return truncate ? parseUnits(value.toFixed(decimals), decimals) : undefined;
    return parseUnits(text, decimals, truncate);
  }
  return undefined;
}
