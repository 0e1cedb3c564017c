export const MALLOC_ADDON: string;
