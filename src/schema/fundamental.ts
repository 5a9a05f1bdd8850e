// filled in by the fundamental resource module
export {};
