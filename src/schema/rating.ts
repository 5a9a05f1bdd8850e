// filled in by the rating resource module
export {};
