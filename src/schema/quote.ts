// filled in by the quote resource module
export {};
