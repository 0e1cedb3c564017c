export function buildIsFresh(): boolean;
export function serverBuildIsFresh(): boolean;
export function buildServer(): Promise<void>;
export function buildIfNeeded(): void;
export function buildAllIfNeeded(): Promise<void>;
