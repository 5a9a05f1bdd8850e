// filled in by the news resource module
export {};
