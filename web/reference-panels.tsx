// News, ratings and fundamentals of the company page, each as its panel (panel.tsx).
import type { WebCompanyQuery } from '../generated/graphql/graphql';
import type { GraphQLError } from './api';
import { compact, day, price } from './format';
import { Panel } from './panel';

type Company = NonNullable<WebCompanyQuery['security']>;
type Nodes<K extends 'news' | 'ratings' | 'fundamentals'> = NonNullable<Company[K]>['nodes'];

export function NewsPanel({ news, error }: { news: Nodes<'news'>; error: GraphQLError | undefined }) {
  return (
    <Panel title="News" error={error} className="news">
      {news.length ? (
        <ul>
          {news.map((n) => (
            <li key={n.id}>
              <span class={`tag ${n.type.toLowerCase()}`}>{n.type}</span> {n.headline} <small>{day(n.createdAt)}</small>
            </li>
          ))}
        </ul>
      ) : (
        <p>No news.</p>
      )}
    </Panel>
  );
}

export function RatingsPanel({ ratings, error }: { ratings: Nodes<'ratings'>; error: GraphQLError | undefined }) {
  return (
    <Panel title="Analyst ratings" error={error} className="ratings">
      {ratings.length ? (
        <table>
          <thead>
            <tr>
              <th scope="col">Firm</th>
              <th scope="col">Action</th>
              <th scope="col">Rating</th>
              <th scope="col">Target</th>
              <th scope="col">Date</th>
            </tr>
          </thead>
          <tbody>
            {ratings.map((r) => (
              <tr key={r.id}>
                <td>{r.firm}</td>
                <td>{r.action}</td>
                <td>{r.rating}</td>
                <td class="num">{r.priceTarget}</td>
                <td>{day(r.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p>No ratings.</p>
      )}
    </Panel>
  );
}

export function FundamentalsPanel({
  fundamentals,
  error,
}: {
  fundamentals: Nodes<'fundamentals'>;
  error: GraphQLError | undefined;
}) {
  return (
    <Panel title="Fundamentals" error={error} className="fundamentals">
      {fundamentals.length ? (
        <table>
          <thead>
            <tr>
              <th scope="col">Period</th>
              <th scope="col">Revenue</th>
              <th scope="col">Net income</th>
              <th scope="col">Diluted EPS</th>
            </tr>
          </thead>
          <tbody>
            {fundamentals.map((f) => (
              <tr key={f.id}>
                <td>
                  {f.quarter} {f.year}
                </td>
                <td class="num">{compact(f.incomeStatement.revenue)}</td>
                <td class="num">{compact(f.incomeStatement.netIncomeLossAttributableCommonShareholders)}</td>
                <td class="num">{price(f.incomeStatement.dilutedEarningsPerShare)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p>No fundamentals.</p>
      )}
    </Panel>
  );
}
