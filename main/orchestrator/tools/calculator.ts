// calculator: a recursive-descent parser for + - * / % ^, parentheses, unary minus and a few functions. No eval.
const FUNCS: Record<string, (...a: number[]) => number> = {
  sqrt: Math.sqrt,
  abs: Math.abs,
  sin: Math.sin,
  cos: Math.cos,
  tan: Math.tan,
  ln: Math.log,
  log10: Math.log10,
  floor: Math.floor,
  ceil: Math.ceil,
  round: Math.round,
  min: Math.min,
  max: Math.max,
  exp: Math.exp,
};
const CONSTS: Record<string, number> = { pi: Math.PI, e: Math.E };

export function evaluate(expr: string): number {
  if (expr.length > 1000) throw new Error('expression too long (max 1000 characters)');
  const tokens = expr.match(/\d+(?:\.\d+)?(?:e[+-]?\d+)?|\.\d+|[a-z_][a-z0-9_]*|\*\*|[-+*/%^(),]|\S/gi) ?? [];
  let i = 0;
  const peek = () => tokens[i];
  const take = (t?: string) => {
    const tok = tokens[i++];
    if (t !== undefined && tok !== t)
      throw new Error(`expected "${t}" but found ${tok === undefined ? 'the end' : `"${tok}"`}`);
    return tok;
  };
  const expression = (): number => {
    let v = term();
    while (peek() === '+' || peek() === '-') v = take() === '+' ? v + term() : v - term();
    return v;
  };
  const term = (): number => {
    let v = unary();
    while (peek() === '*' || peek() === '/' || peek() === '%') {
      const op = take();
      const r = unary();
      v = op === '*' ? v * r : op === '/' ? v / r : v % r;
    }
    return v;
  };
  const unary = (): number => {
    if (peek() === '-') return (take(), -unary());
    if (peek() === '+') return (take(), unary());
    return power();
  };
  const power = (): number => {
    const base = primary();
    if (peek() === '^' || peek() === '**') return (take(), base ** unary());
    return base;
  };
  const primary = (): number => {
    const tok = take();
    if (tok === undefined) throw new Error('unexpected end of expression');
    if (tok === '(') {
      const v = expression();
      take(')');
      return v;
    }
    if (/^[\d.]/.test(tok)) return Number(tok);
    const name = tok.toLowerCase();
    if (name in CONSTS) return CONSTS[name] as number;
    const fn = FUNCS[name];
    if (fn) {
      take('(');
      const args = [expression()];
      while (peek() === ',') (take(), args.push(expression()));
      take(')');
      return fn(...args);
    }
    throw new Error(`unexpected "${tok}"`);
  };
  const v = expression();
  if (i < tokens.length) throw new Error(`unexpected "${tokens[i]}"`);
  if (!Number.isFinite(v)) throw new Error('the result is not a finite number');
  return v;
}
