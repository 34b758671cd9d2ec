/** The training methods in table and legend order; methods not listed follow in name order. */
export const methodOrder = ['grpo', 'h0-resample', 'mixture', 'harness-s'] as const;

const methodColors: Record<string, string> = {
  grpo: '#8b94a3',
  'h0-resample': '#e8833a',
  mixture: '#a371f7',
  'harness-s': '#1f6feb',
};

/** The harness-s runs of a reproduction in table order: the main run, then the router ablations. */
const variantOrder = ['main', 'fixed-profiles', 'rescue-4x2'];

const variantColors: Record<string, string> = {
  'fixed-profiles': '#79b8ff',
  'rescue-4x2': '#12a594',
};

const categorical = ['#12a594', '#e8833a', '#a371f7', '#d6409f', '#f5b400', '#5b8c00', '#8b94a3', '#0091ff'];

export function methodColor(method: string): string {
  return methodColors[method] ?? categorical[method.length % categorical.length] ?? '#8b94a3';
}

export function variantColor(variant: string): string {
  return variantColors[variant] ?? '#1f6feb';
}

/** H0 is drawn in the method's blue so its rising share stands out; variants get other hues. */
export function harnessColor(harnessId: string, index: number): string {
  return harnessId === 'h0' ? '#1f6feb' : (categorical[index % categorical.length] ?? '#8b94a3');
}

/** Methods in table order. */
export function sortMethods(methods: Iterable<string>): string[] {
  const rank = (method: string) => {
    const index = (methodOrder as readonly string[]).indexOf(method);
    return index === -1 ? methodOrder.length : index;
  };
  return [...new Set(methods)].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** Variants in ablation order: the main run first. */
export function sortVariants(variants: Iterable<string>): string[] {
  const rank = (variant: string) =>
    variantOrder.includes(variant) ? variantOrder.indexOf(variant) : variantOrder.length;
  return [...new Set(variants)].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}
