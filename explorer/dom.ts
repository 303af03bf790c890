/** A few lines over the DOM API so that each view reads as the markup it builds. */

type Child = Node | string | null | undefined | false;
type Attributes = Record<string, string | number | boolean | null | undefined | ((event: Event) => void)>;

/** `element('td', { class: 'number' }, '12.5')`: attributes, event handlers (`on...`), then children. */
export function element<Tag extends keyof HTMLElementTagNameMap>(
  tag: Tag,
  attributes: Attributes = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[Tag] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function') node.addEventListener(name.slice(2), value);
    else if (value === true) node.setAttribute(name, '');
    else node.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child);
  }
  return node;
}

export interface Column<Row> {
  heading: string;
  /** The cell's text, exactly as it should read. */
  cell: (row: Row) => Node | string;
  numeric?: boolean;
}

/**
 * A table with a caption, in a container that scrolls sideways on a narrow screen instead of
 * squeezing the columns. `name` goes into `data-table`, which tests and styles select on.
 */
export function table<Row>(name: string, caption: string, columns: Column<Row>[], rows: Row[], footer?: (Node | string)[]): HTMLElement {
  const numeric = (column: Column<Row>) => (column.numeric ? 'number' : null);
  return element(
    'div',
    { class: 'table-scroll', tabindex: 0, role: 'region', 'aria-label': caption },
    element(
      'table',
      { 'data-table': name },
      element('caption', {}, caption),
      element(
        'thead',
        {},
        element(
          'tr',
          {},
          columns.map((column) => element('th', { scope: 'col', class: numeric(column) }, column.heading)),
        ),
      ),
      element(
        'tbody',
        {},
        rows.map((row) =>
          element(
            'tr',
            {},
            columns.map((column) => element('td', { class: numeric(column), 'data-column': column.heading }, column.cell(row))),
          ),
        ),
      ),
      footer
        ? element(
            'tfoot',
            {},
            element(
              'tr',
              {},
              footer.map((cell, index) =>
                index === 0
                  ? element('th', { scope: 'row', colspan: columns.length - footer.length + 1 }, cell)
                  : element('td', { class: 'number' }, cell),
              ),
            ),
          )
        : null,
    ),
  );
}

/** A message whose first word says what it is, so that it reads the same without colour. */
export function message(kind: 'error' | 'notice', label: string, text: string): HTMLElement {
  return element(
    'p',
    { class: `message message-${kind}`, role: kind === 'error' ? 'alert' : 'status' },
    element('strong', {}, `${label}: `),
    text,
  );
}

// Whether amounts show the JSON's exact text instead of their rounded form (the page's "Exact values" switch).
let exactValues = false;

/**
 * An amount as a person reads it (`$1,234.57`), its exact JSON text in `data-exact` and in the
 * title (shown on hover); the "Exact values" switch shows the exact text in place.
 */
export function amount(shown: string, exact: string, note?: string): HTMLElement {
  return element(
    'span',
    {
      class: note ? 'amount amount-note' : 'amount',
      'data-exact': exact,
      'data-shown': shown,
      title: `${note ? `${note}. ` : ''}Exact value: ${exact}`,
    },
    exactValues ? exact : shown,
  );
}

/** Switches every amount on the page, and those drawn later, between its rounded and exact text. */
export function showExactValues(on: boolean): void {
  exactValues = on;
  for (const node of document.querySelectorAll<HTMLElement>('[data-exact]'))
    node.textContent = (on ? node.dataset.exact : node.dataset.shown) ?? '';
}
