/** Calendar days as integers (days since 1970-01-01), the form they take between SQL and JS. */
const MS_PER_DAY = 86_400_000;

export function dayNumber(date: string): number {
  return Math.round(Date.parse(`${date}T00:00:00Z`) / MS_PER_DAY);
}

export function dayText(day: number): string {
  return new Date(day * MS_PER_DAY).toISOString().slice(0, 10);
}
