// filled in by the balance-sheet resource module
export {};
