// filled in by the call-summary resource module
export {};
