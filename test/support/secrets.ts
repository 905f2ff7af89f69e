// Where secrets would show: bytes (answers, log output) scanned for every secret a test used,
// each as its exact bytes. A hit names the place and the secret's label, never the secret.
export class SecretScanner {
  private readonly needles: { readonly label: string; readonly bytes: Buffer }[] = [];
  readonly hits: string[] = [];

  /** `secrets` as [label, value]; empty values are ignored (they would match everywhere). */
  constructor(secrets: readonly (readonly [string, string])[], private readonly hitsMax = 20) {
    for (const [label, value] of secrets) if (value !== '') this.needles.push({ label, bytes: Buffer.from(value) });
  }

  get count(): number {
    return this.needles.length;
  }

  scan(where: string, bytes: Buffer | string): void {
    const haystack = typeof bytes === 'string' ? Buffer.from(bytes) : bytes;
    for (const needle of this.needles) {
      if (haystack.indexOf(needle.bytes) !== -1 && this.hits.length < this.hitsMax) this.hits.push(`${where}: ${needle.label}`);
    }
  }
}
