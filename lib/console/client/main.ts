export function placeholder(): void {}
