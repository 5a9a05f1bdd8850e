// filled in by the logo resource module
export {};
