// filled in by the press-release resource module
export {};
