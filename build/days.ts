/** Calendar days as integers (days since 1970-01-01), the form they take between SQL and JS. */
const MS_PER_DAY = 86_400_000;

export function dayNumber(date: string): number {
  return Math.round(Date.parse(`${date}T00:00:00Z`) / MS_PER_DAY);
}

const texts = new Map<number, string>();

/** `YYYY-MM-DD` of a day number (cached: a build names the same few hundred days millions of times). */
export function dayText(day: number): string {
  let text = texts.get(day);
  if (text === undefined) {
    text = new Date(day * MS_PER_DAY).toISOString().slice(0, 10);
    texts.set(day, text);
  }
  return text;
}
